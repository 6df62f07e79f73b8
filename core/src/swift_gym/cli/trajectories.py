"""The trajectory file `eval` writes and `replay` and `report` read: one JSON object per line.

Each line is one episode:
`index`, `env`, `seed`, `env_config`, `policy`, `system_prompt`, `observation` (the first),
`reset_info`, `turns` (each: `turn`, `reply`, `action`, `valid_action`, `observation`, `reward`,
`done`, `info`), `num_turns`, `total_reward`, `success`, `status` and `error` (why the episode
failed, or null). Lines are written in `index` order as soon as the episodes before them end,
so an interrupted run keeps a usable prefix.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from rich.text import Text

from .console import stderr
from .errors import CommandError
from .json_text import dumps as json_dumps
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


def read_trajectories(path: Path) -> Iterator[dict[str, Any]]:
    """The episodes of a trajectory file. A line that is not one is skipped with a warning
    naming its number (the first few of them), and reading goes on; a file with no episode at
    all stops the command."""
    bad = good = 0
    first = ""
    for line in read_jsonl(path):
        if line.row is None or not isinstance(line.row.get("turns"), list):
            bad += 1
            why = line.error or "not an episode record (no 'turns' list)"
            reason = f"{path}, line {line.number}: {why}"
            first = first or reason
            if bad <= _SHOWN_BAD_LINES:
                stderr().print(Text.assemble(("skipped: ", "bold yellow"), reason))
            continue
        good += 1
        yield line.row
    if bad > _SHOWN_BAD_LINES:
        stderr().print(Text(f"skipped {bad} lines in all that are not episodes", style="yellow"))
    if bad and not good:
        raise CommandError(first)
