"""`swift-gym report`: runs side by side in one self-contained HTML page (see `report_page`).

Each argument is a run: a trajectory file from `swift-gym eval -o`, or a directory that
training filled (SWIFT_GYM_TRAJECTORIES). The first is the baseline the others are compared with.
"""

from __future__ import annotations

import string
from pathlib import Path

import click

from ..output_files import describe, open_output
from . import visible
from .console import stderr
from .errors import CommandError
from .report_page import Run, render_report
from .trajectories import read_trajectories, trajectory_files
from .transcript import plural

LABELS = string.ascii_uppercase


def load_runs(paths: tuple[Path, ...], output: Path) -> list[Run]:
    """One run per path, lettered A, B, ... in the order given."""
    if len(paths) > len(LABELS):
        raise CommandError(f"at most {len(LABELS)} runs in one report, got {len(paths)}")
    runs = []
    for label, path in zip(LABELS, paths, strict=False):
        records = []
        for file in trajectory_files([path], output):
            try:
                records.extend(read_trajectories(file))
            except OSError as error:
                raise CommandError(f"cannot read {file}: {error.strerror or error}") from None
        if not records:
            raise CommandError(f"{path} holds no episodes")
        runs.append(Run(label, str(path), records))
    return runs


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
    first = trajectories[0]
    output = output or (first / "report.html" if first.is_dir() else first.with_suffix(".html"))
    runs = load_runs(trajectories, output)
    page = render_report(runs, episodes_shown)
    with open_output(output) as file:
        file.write(page)
    episodes = sum(len(run.records) for run in runs)
    stderr().print(
        visible.rich(
            f"wrote {describe(output)} ({plural(len(runs), 'run')}, {plural(episodes, 'episode')})"
        )
    )
