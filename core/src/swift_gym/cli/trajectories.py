"""Reading a trajectory file for `replay` and `report`: each line that is no episode is named in a
warning on stderr (the first few of them), and a file with no episode stops the command.

The file's schema, writing and reading are the library's: `evaluation.records`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.text import Text

from ..evaluation.errors import TrajectoryFileError
from ..evaluation.records import read_records
from . import visible
from .console import stderr
from .errors import CommandError

_SHOWN_BAD_LINES = 20


def read_trajectories(path: Path) -> Iterator[dict[str, Any]]:
    """The episodes of `path`, warning about each line skipped (see the module docstring)."""
    bad = 0

    def warn(reason: str) -> None:
        nonlocal bad
        bad += 1
        if bad <= _SHOWN_BAD_LINES:
            stderr().print(Text.assemble(("skipped: ", "bold yellow"), visible.rich(reason)))

    def count() -> None:
        if bad > _SHOWN_BAD_LINES:
            stderr().print(
                Text(f"skipped {bad} lines in all that are not episodes", style="yellow")
            )

    try:
        yield from read_records(path, warn)
    except TrajectoryFileError as error:
        count()
        raise CommandError(str(error)) from None
    count()
