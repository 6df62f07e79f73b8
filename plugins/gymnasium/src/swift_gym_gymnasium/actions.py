"""From the model's newest reply to one of an env's action names, or None.

What a model writes is untrusted: None content, multimodal parts, a 10 MB reply, an empty
history. Nothing here raises, and the tag pattern cannot backtrack without bound (its content
is at most `MAX_TAG_CONTENT` characters without '<' or '>'), so the cost is linear in the reply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

from swift_gym.replies import reply_text  # noqa: F401 - this package's name too

ActionParsing = Literal["first_tag", "last_tag", "single_tag"]
ActionFormat = Literal["tag", "tool"]

MAX_TAG_CONTENT = 64
_TAG = re.compile(
    rf"<\s{{0,8}}action\s{{0,8}}>([^<>]{{0,{MAX_TAG_CONTENT}}})<\s{{0,8}}/\s{{0,8}}action\s{{0,8}}>",
    re.IGNORECASE,
)
_search = _TAG.search


def answer_format(names: Sequence[str]) -> str:
    """`<action>a</action>, <action>b</action> or <action>c</action>`."""
    tags = [f"<action>{name}</action>" for name in names]
    return tags[0] if len(tags) == 1 else ", ".join(tags[:-1]) + " or " + tags[-1]


class ActionReader:
    """Reads `<action>NAME</action>` for one env's names; NAME's index is Gymnasium's action.

    Names are matched case-insensitively, with spaces allowed around them and inside the tag.
    """

    def __init__(self, names: Sequence[str], mode: ActionParsing = "first_tag"):
        self.names = tuple(names)
        self.mode = mode
        self._index = {name.lower(): index for index, name in enumerate(self.names)}
        self._exact = {f"<action>{name}</action>": index for index, name in enumerate(self.names)}
        """Replies that are exactly one canonical tag: the same answer in every mode, without
        the regex (trained models mostly answer so)."""

    def _lookup(self, match: re.Match[str] | None) -> int | None:
        return None if match is None else self._index.get(match.group(1).strip().lower())

    def parse(self, text: Any) -> int | None:
        """The action index `text` asks for, or None when it holds no valid action.

        first_tag: the first tag decides (a tag that holds no action name makes the reply
        invalid; later tags are not consulted); last_tag: the last tag decides; single_tag:
        exactly one tag, else invalid. Text that is not a string is no action.
        """
        exact = self._exact.get(text) if type(text) is str else None
        if exact is not None:
            return exact
        if not isinstance(text, str):
            return None
        if self.mode == "first_tag":
            match = _search(text)
            return None if match is None else self._index.get(match.group(1).strip().lower())
        if self.mode == "last_tag":
            last = None
            for last in _TAG.finditer(text):  # noqa: B007 - we want the final match
                pass
            return self._lookup(last)
        tags = _TAG.finditer(text)
        first = next(tags, None)
        if first is None or next(tags, None) is not None:
            return None
        return self._lookup(first)

    def explain(self, text: str) -> str:
        """Why `parse(text)` found no action, as one ASCII clause (off the hot path)."""
        if not text.strip():
            return "the reply is empty"
        tags = list(_TAG.finditer(text[:1_000_000]))
        if not tags:
            return "the reply has no <action>...</action> tag"
        if self.mode == "single_tag" and len(tags) > 1:
            return f"the reply has {len(tags)} <action> tags; give exactly one"
        tag = tags[-1] if self.mode == "last_tag" else tags[0]
        return f"the <action> tag holds {tag.group(1).strip()!a}, which is not an action"


@lru_cache(maxsize=64)
def reader(names: tuple[str, ...], mode: ActionParsing) -> ActionReader:
    """The shared `ActionReader` of an env's names and mode (envs of a run share a few)."""
    return ActionReader(names, mode)
