"""Reading trajectory files for `replay`, `report` and `export`: each line that is no episode is
named in a warning on stderr (the first few of them), and a file with no episode stops the
command. A directory stands for the files training wrote into it.

The file's schema, writing and reading are the library's: `evaluation.records`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from rich.text import Text

from ..evaluation.errors import TrajectoryFileError
from ..evaluation.records import read_records
from ..evaluation.runs import trajectory_paths
from ..output_files import is_stdout
from . import visible
from .console import stderr
from .errors import CommandError

_SHOWN_BAD_LINES = 20


def read_trajectories(path: Path, warn_skipped: bool = True) -> Iterator[dict[str, Any]]:
    """The episodes of `path`, warning about each line skipped (see the module docstring; no
    warnings with `warn_skipped=False`, for a file read a second time). A file that cannot be
    read is a `CommandError` naming it."""
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
        yield from read_records(path, warn if warn_skipped else None)
    except TrajectoryFileError as error:
        count()
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror or error}") from None
    count()


def trajectory_files(paths: Iterable[Path], output: Path | None = None) -> list[Path]:
    """The files to read (see `evaluation.runs.trajectory_paths`; `-` is stdin), never the
    output. Listed before the output is opened, whose temporary file is hidden beside it."""
    files: list[Path] = []
    for path in paths:
        if _same_file(path, output):
            raise CommandError(f"{path} is the output too: writing would replace the episodes")
        try:
            files.extend(trajectory_paths(path, lambda file: not _same_file(file, output)))
        except TrajectoryFileError as error:
            raise CommandError(str(error)) from None
    return files


def _same_file(path: Path, output: Path | None) -> bool:
    if output is None or is_stdout(path) or is_stdout(output):
        return False
    try:
        return path.samefile(output)
    except OSError:  # the output does not exist yet
        return False
