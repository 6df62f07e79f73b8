"""The names a user can type, with a did-you-mean and a listing whose cost stays bounded.

A plugin may register a family of 100,000 envs, and every unknown name in a dataset row makes an
error: comparing the name with all of them (difflib) or listing them all in the message would
cost a second and a megabyte per bad row. Here a did-you-mean compares the name only with its
neighbours in sorted order, read forwards (a typo near the end) and backwards (a typo near the
start), and a listing shows the first names and how many more there are. Standard library only.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

CUTOFF = 0.6
"""How alike (difflib's ratio) a name must be to be suggested, as `difflib.get_close_matches`."""
COMPARE_ALL_UP_TO = 1000
"""Up to this many names, a did-you-mean compares the word with every one of them."""
NEIGHBOURS = 50
"""Beyond that, the names compared: this many on each side of the word, in each order."""
LISTED = 20
"""How many names a message lists before "and N more"."""


class EnvNames(Sequence[str]):
    """Env names in the order given, shared by every error one registry raises (built once)."""

    def __init__(self, names: Iterable[str]):
        self._names = tuple(dict.fromkeys(names))
        self._forwards: list[tuple[str, str]] | None = None
        self._backwards: list[tuple[str, str]] | None = None
        self._longest_name: int | None = None

    def __len__(self) -> int:
        return len(self._names)

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:  # type: ignore[override]
        return self._names[index]

    def __repr__(self) -> str:
        return f"EnvNames({self.listing()})"

    def listing(self, limit: int = LISTED) -> str:
        """`a, b, c`, or the first `limit` names and `and N more`."""
        shown = ", ".join(self._names[:limit])
        hidden = len(self._names) - limit
        return f"{shown} and {hidden:,} more" if hidden > 0 else shown

    def closest(self, word: str, count: int = 1) -> list[str]:
        """Up to `count` names most like `word` (ignoring case), best first; [] if none is close."""
        if len(word) > self._longest() * 7 // 3 + 1:  # ratio 2M/(a+b) >= 0.6 needs a <= 7b/3
            return []  # and a huge word (a 50 MB value in a row) costs nothing
        key = word.casefold()
        candidates = self._names if len(self._names) <= COMPARE_ALL_UP_TO else self._near(key)
        matcher = SequenceMatcher()
        matcher.set_seq2(key)
        scored = []
        for name in candidates:
            folded = name.casefold()
            matcher.set_seq1(folded)
            if (
                matcher.real_quick_ratio() >= CUTOFF
                and matcher.quick_ratio() >= CUTOFF
                and (score := matcher.ratio()) >= CUTOFF
            ):  # equally alike: the longer common start wins (level_0424x: level_04240)
                scored.append((-score, -_common_start(key, folded), name))
        return [name for *_, name in sorted(scored)[:count]]

    def _longest(self) -> int:
        if self._longest_name is None:
            self._longest_name = max(map(len, self._names), default=0)
        return self._longest_name

    def _near(self, key: str) -> set[str]:
        if self._forwards is None or self._backwards is None:
            self._forwards = sorted((name.casefold(), name) for name in self._names)
            self._backwards = sorted((name.casefold()[::-1], name) for name in self._names)
        near: set[str] = set()
        for ordered, probe in ((self._forwards, key), (self._backwards, key[::-1])):
            at = bisect.bisect_left(ordered, (probe, ""))
            near.update(name for _, name in ordered[max(0, at - NEIGHBOURS) : at + NEIGHBOURS])
        return near


def _common_start(one: str, other: str) -> int:
    """How many leading characters two strings share."""
    for index, (a, b) in enumerate(zip(one, other, strict=False)):
        if a != b:
            return index
    return min(len(one), len(other))


def as_env_names(names: Sequence[str]) -> EnvNames:
    """`names` as EnvNames, without copying when it already is."""
    return names if isinstance(names, EnvNames) else EnvNames(names)
