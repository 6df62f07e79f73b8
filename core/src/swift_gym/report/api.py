"""The report from Python: the page `swift-gym report` writes, for a notebook or a script.

    from swift_gym.report import render_html, write_html
    html = render_html(["before.jsonl", "after.jsonl"])     # run A (the baseline), run B
    write_html("compare.html", [result, "runs/training/"])  # an EvalResult, a training directory

In Jupyter, show it in a frame, `HTML(f'<iframe srcdoc="{html.escape(page)}" ...>')`: the
page's style then stays its own (put straight into the notebook, it would restyle the notebook)
and its one script, the episode filters, runs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..output_files import open_output
from .page import render_report
from .runs import EPISODES_SHOWN, RunSource, as_runs


def render_html(runs: RunSource | Sequence[RunSource], *, episodes: int = EPISODES_SHOWN) -> str:
    """The self-contained HTML page about `runs`: one run or a list, the first the baseline.

    A run is a trajectory file (`swift-gym eval -o`, `evaluate(output=...)`), a directory that
    training filled (SWIFT_GYM_TRAJECTORIES), an `EvalResult`, a list of records, or a `Run`;
    they are lettered A, B, ... in order. At most `episodes` episodes of each run go into the
    episode browser, spread over its envs and statuses. Raises `TrajectoryFileError` for a path
    that holds no episode, `ValueError` for no runs or more than 100.
    """
    if episodes < 0:
        raise ValueError(f"episodes is a count, 0 or more, not {episodes}")
    return render_report(as_runs(runs, episodes), episodes)


def write_html(
    path: str | os.PathLike[str],
    runs: RunSource | Sequence[RunSource],
    *,
    episodes: int = EPISODES_SHOWN,
) -> Path:
    """`render_html(runs)` written to `path` (`-`: stdout), whole or not at all; returns it."""
    page = render_html(runs, episodes=episodes)
    with open_output(os.fspath(path)) as file:
        file.write(page)
    return Path(path)
