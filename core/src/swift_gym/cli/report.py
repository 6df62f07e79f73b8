"""`swift-gym report`: runs side by side in one self-contained HTML page.

The page is the library's (`swift_gym.report`, which a notebook calls as `render_html`); the
command reads its arguments as runs, lettered A, B, ... (each a trajectory file from
`swift-gym eval -o`, or a directory that training filled), tells on stderr each line that is no
episode, and writes the page where `-o` says.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..evaluation.errors import TrajectoryFileError
from ..output_files import describe, open_output
from ..report.api import render_html
from ..report.runs import LABELS, MAX_RUNS, Run
from ..report.runs import load_run as load_library_run
from . import visible
from .console import stderr
from .errors import CommandError
from .trajectories import read_trajectories, trajectory_files
from .transcript import plural


def load_run(label: str, path: Path, output: Path, limit: int) -> Run:
    """The run in `path` (see `report.runs.load_run`), never reading the output, each skipped
    line warned about on stderr; no episode at all is a `CommandError`."""
    files = trajectory_files([path], output)
    try:
        return load_library_run(label, path, limit, files=files, read=read_trajectories)
    except TrajectoryFileError as error:
        raise CommandError(str(error)) from None


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
    page = render_html(runs, episodes=episodes_shown)
    with open_output(output) as file:
        file.write(page)
    episodes = sum(len(run.records) for run in runs)
    stderr().print(
        visible.rich(
            f"wrote {describe(output)} ({plural(len(runs), 'run')}, {plural(episodes, 'episode')})"
        )
    )
