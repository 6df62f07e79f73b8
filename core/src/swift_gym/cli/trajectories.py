"""The trajectory file `eval` writes and `replay` and `report` read: one JSON object per line.

Each line is one episode:
`index`, `env`, `seed`, `env_config`, `policy`, `system_prompt`, `observation` (the first),
`reset_info`, `turns` (each: `turn`, `reply`, `action`, `valid_action`, `observation`, `reward`,
`done`, `info`), `num_turns`, `total_reward`, `success`, `status` and `error` (why the episode
failed, or null). Lines are written in `index` order as soon as the episodes before them end,
so an interrupted run keeps a usable prefix.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from rich.text import Text

from ..json_text import dumps as json_dumps
from . import visible
from .console import stderr
from .errors import CommandError
from .rows import read_jsonl

_SHOWN_BAD_LINES = 20


def dumps(record: dict[str, Any]) -> str:
    """A record as one JSON line that always encodes: values JSON cannot hold (an env's custom
    info) become str, lone surrogates from a model stay escaped, too-deep parts are cut."""
    return json_dumps(record)


class OrderedWriter:
    """Writes records by `index`, holding back those that finish before their predecessors."""

    def __init__(self, file: IO[str] | None, first_index: int = 0):
        self.file = file
        self._next = first_index
        self._waiting: dict[int, dict[str, Any]] = {}

    def add(self, record: dict[str, Any]) -> None:
        if self.file is None:
            return
        self._waiting[record["index"]] = record
        while self._next in self._waiting:
            self.file.write(dumps(self._waiting.pop(self._next)) + "\n")
            self._next += 1
        self.file.flush()

    def finish(self) -> None:
        """Write whatever is still held (only after a gap, which a finished run never has)."""
        if self.file is None:
            return
        for index in sorted(self._waiting):
            self.file.write(dumps(self._waiting.pop(index)) + "\n")
        self.file.flush()


def record_problem(row: dict[str, Any]) -> str | None:
    """Why `row` is no episode record that `replay` and `report` can show, or None.

    Only the fields they compute with are checked (a hand-edited or foreign file must give a
    line-numbered warning, not a traceback from a sum); every other field is shown as it is.
    """
    turns = row.get("turns")
    if not isinstance(turns, list) or not all(isinstance(turn, dict) for turn in turns):
        return "not an episode record (no 'turns' list of objects)"
    for key, kinds in (("num_turns", (int,)), ("total_reward", (int, float))):
        value = row.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value):
            return f"not an episode record ({key!r} is {visible.brief(value, 40)}, not a number)"
    return None


def read_trajectories(path: Path) -> Iterator[dict[str, Any]]:
    """The episodes of a trajectory file. A line that is not one is skipped with a warning
    naming its number (the first few of them), and reading goes on; a file with no episode at
    all stops the command."""
    bad = good = 0
    first = ""
    for line in read_jsonl(path):
        why = line.error if line.row is None else record_problem(line.row)
        if why is not None:
            bad += 1
            reason = f"{path}, line {line.number}: {why}"
            first = first or reason
            if bad <= _SHOWN_BAD_LINES:
                stderr().print(Text.assemble(("skipped: ", "bold yellow"), visible.rich(reason)))
            continue
        good += 1
        yield line.row
    if bad > _SHOWN_BAD_LINES:
        stderr().print(Text(f"skipped {bad} lines in all that are not episodes", style="yellow"))
    if bad and not good:
        raise CommandError(first)
