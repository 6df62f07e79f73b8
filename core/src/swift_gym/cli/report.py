"""`swift-gym report`: runs side by side in one self-contained HTML page (see `report_page`).

Each argument is a run: a trajectory file from `swift-gym eval -o`, or a directory that
training filled (SWIFT_GYM_TRAJECTORIES). The first is the baseline the others are compared with.

A training run can hold millions of episodes, so the files are read twice: once keeping only
what the numbers need of each episode (`records.slim`, a few hundred bytes), once more for the
whole records of the episodes the browser shows. Files only grow while training writes them,
so the second pass finds the same episodes at the same places. A path that is no regular file
(a FIFO) cannot be read twice: its whole records are kept from the one pass.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

import click

from ..evaluation.records import slim
from ..output_files import describe, open_output
from . import visible
from .console import stderr
from .episode_browser import pick
from .errors import CommandError
from .report_page import Run, render_report
from .trajectories import read_trajectories, trajectory_files
from .transcript import plural

MAX_RUNS = 100
"""More is most likely a glob that took too much; a page of 100 runs is already wide."""
LABELS = [
    *string.ascii_uppercase,
    *(a + b for a in string.ascii_uppercase for b in string.ascii_uppercase),
][:MAX_RUNS]
"""A, B, ..., Z, then AA, AB, ...: the runs' names on the page."""


def load_run(label: str, path: Path, output: Path, limit: int) -> Run:
    """The run in `path`: slim records of all its episodes, whole ones of those shown."""
    files = trajectory_files([path], output)
    records: list[dict[str, Any]] = []
    places: list[tuple[int, int]] = []  # (file, ordinal in it) of each record
    kept: dict[tuple[int, int], dict[str, Any]] = {}
    for number, file in enumerate(files):
        again = file.is_file()
        for ordinal, record in enumerate(read_trajectories(file)):
            records.append(slim(record))
            places.append((number, ordinal))
            if not again:
                kept[(number, ordinal)] = record
    if not records:
        raise CommandError(f"{path} holds no episodes")
    positions = pick(records, limit)
    missing = {places[position] for position in positions if places[position] not in kept}
    for number in sorted({number for number, _ in missing}):
        for ordinal, record in enumerate(read_trajectories(files[number], warn_skipped=False)):
            if (number, ordinal) in missing:
                kept[(number, ordinal)] = record
    shown = {position: kept[places[position]] for position in positions if places[position] in kept}
    return Run(label, str(path), records, shown)


@click.command()
@click.argument(
    "trajectories", nargs=-1, required=True,
    type=click.Path(exists=True, readable=True, path_type=Path),
)  # fmt: skip
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    help="HTML file to write ('-': stdout) [default: the first TRAJECTORIES with .html].",
)  # fmt: skip
@click.option(
    "--episodes", "episodes_shown", type=click.IntRange(min=0), default=300, show_default=True,
    help="Episodes of each run written into the page's episode browser (spread over its envs "
    "and statuses).",
)  # fmt: skip
def report(trajectories: tuple[Path, ...], output: Path | None, episodes_shown: int) -> None:
    """Write one self-contained HTML page about the runs in TRAJECTORIES.

    Each is a run: a file from `swift-gym eval -o`, or a directory of training trajectories
    (SWIFT_GYM_TRAJECTORIES). The page shows each run's summary side by side, the differences
    from the first run and whether they are significant, the same per env, learning curves
    over training steps (or time) for training runs, and an episode browser filtered by run,
    env and status. It loads nothing and runs no script but its own filter.

    Example: swift-gym report before.jsonl after.jsonl -o compare.html
    """
    if len(trajectories) > MAX_RUNS:
        raise CommandError(f"at most {MAX_RUNS} runs in one report, got {len(trajectories)}")
    first = trajectories[0]
    output = output or (first / "report.html" if first.is_dir() else first.with_suffix(".html"))
    runs = [
        load_run(label, path, output, episodes_shown)
        for label, path in zip(LABELS, trajectories, strict=False)
    ]
    page = render_report(runs, episodes_shown)
    with open_output(output) as file:
        file.write(page)
    episodes = sum(len(run.records) for run in runs)
    stderr().print(
        visible.rich(
            f"wrote {describe(output)} ({plural(len(runs), 'run')}, {plural(episodes, 'episode')})"
        )
    )
