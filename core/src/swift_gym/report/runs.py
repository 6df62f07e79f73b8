"""The runs a report shows, from whatever holds their episodes: a trajectory file, a directory
that training filled, an `EvalResult`, or records already in memory.

A training run can hold millions of episodes, so a file is read twice: once keeping only what
the numbers need of each episode (`records.slim`, a few hundred bytes), once more for the whole
records of the episodes the browser shows. Files only grow while training writes them, so the
second pass finds the same episodes at the same places. A path that is no regular file (a FIFO)
cannot be read twice: its whole records are kept from the one pass.
"""

from __future__ import annotations

import os
import string
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..evaluation.curves import is_training
from ..evaluation.errors import TrajectoryFileError
from ..evaluation.records import read_records, slim
from ..evaluation.result import EvalResult
from ..evaluation.runs import trajectory_paths
from .episode_browser import pick

MAX_RUNS = 100
"""More is most likely a glob that took too much; a page of 100 runs is already wide."""
LABELS = [
    *string.ascii_uppercase,
    *(a + b for a in string.ascii_uppercase for b in string.ascii_uppercase),
][:MAX_RUNS]
"""A, B, ..., Z, then AA, AB, ...: the runs' names on the page."""
EPISODES_SHOWN = 300
"""Episodes of each run written into the page's episode browser, by default."""

Reader = Callable[[Path, bool], Iterable[dict[str, Any]]]
"""Reads the records of one file; the flag is False on the second pass (warn about nothing)."""


@dataclass
class Run:
    """One run in the report: a letter, where its episodes came from, and the episodes.

    `records` may be slim (`records.slim`: what the numbers need); `shown` are the whole
    records for the episode browser by their position in `records`, by default those `pick`
    chooses.
    """

    label: str
    source: str
    records: list[dict[str, Any]]
    shown: dict[int, dict[str, Any]] | None = None

    @property
    def training(self) -> bool:
        return is_training(self.records)


RunSource = str | os.PathLike[str] | EvalResult | Sequence[Mapping[str, Any]] | Run
"""What a run can be given as: a path (a file or a training directory), an `EvalResult`, a
list of records, or a `Run`."""


def load_run(
    label: str,
    path: str | os.PathLike[str],
    limit: int = EPISODES_SHOWN,
    *,
    files: Sequence[Path] | None = None,
    read: Reader | None = None,
) -> Run:
    """The run in `path`: slim records of all its episodes, whole ones of at most `limit` shown.

    `files`: the files to read (default: `path`'s, `evaluation.runs.trajectory_paths`);
    `read`: how (default: `read_records`, each file's skipped lines told in one warning).
    Raises `TrajectoryFileError` when they hold no episode.
    """
    files = list(trajectory_paths(os.fspath(path)) if files is None else files)
    read = read or _read_warning
    records: list[dict[str, Any]] = []
    places: list[tuple[int, int]] = []  # (file, ordinal in it) of each record
    kept: dict[tuple[int, int], dict[str, Any]] = {}
    for number, file in enumerate(files):
        again = file.is_file()
        for ordinal, record in enumerate(read(file, True)):
            records.append(slim(record))
            places.append((number, ordinal))
            if not again:
                kept[(number, ordinal)] = record
    if not records:
        raise TrajectoryFileError(f"{path} holds no episodes")
    positions = pick(records, limit)
    missing = {places[position] for position in positions if places[position] not in kept}
    for number in sorted({number for number, _ in missing}):
        for ordinal, record in enumerate(read(files[number], False)):
            if (number, ordinal) in missing:
                kept[(number, ordinal)] = record
    shown = {position: kept[places[position]] for position in positions if places[position] in kept}
    return Run(label, str(path), records, shown)


def as_runs(runs: RunSource | Sequence[RunSource], limit: int = EPISODES_SHOWN) -> list[Run]:
    """`runs` as lettered `Run`s, A first. One run, or a list of them; a list of records (dicts)
    is one run. A `Run` keeps its own label."""
    if isinstance(runs, (str, os.PathLike, EvalResult, Run)) or _is_records(runs):
        given = [cast(RunSource, runs)]
    else:
        given = list(cast(Sequence[RunSource], runs))
    if not given:
        raise ValueError("a report needs at least one run")
    if len(given) > MAX_RUNS:
        raise ValueError(f"at most {MAX_RUNS} runs in one report, got {len(given)}")
    return [_as_run(label, run, limit) for label, run in zip(LABELS, given, strict=False)]


def _as_run(label: str, run: RunSource, limit: int) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, (str, os.PathLike)):
        return load_run(label, run, limit)
    records: Sequence[Mapping[str, Any]]
    if isinstance(run, EvalResult):
        records, source = run.records, "EvalResult"
    elif _is_records(run):
        records, source = run, "records"
    else:
        raise TypeError(
            f"run {label}: a path, an EvalResult, a list of records or a Run, "
            f"not {type(run).__name__}"
        )
    if not records:
        raise ValueError(f"run {label} ({source}) holds no episodes")
    return Run(label, source, [dict(record) for record in records])


def _is_records(value: Any) -> bool:
    """A non-empty list (or tuple) of dicts: one run's records, not a list of runs."""
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and bool(value)
        and all(isinstance(item, Mapping) for item in value)
    )


def _read_warning(path: Path, warn: bool) -> Iterable[dict[str, Any]]:
    """The records of `path`, lines that are none skipped and told in one warning."""
    skipped: list[str] = []
    yield from read_records(path, skipped.append)
    if skipped and warn:
        more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
        warnings.warn(f"skipped {skipped[0]}{more}", stacklevel=2)
