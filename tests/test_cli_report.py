"""`swift-gym report` on real runs: eval files from the installed command, and directories of
training trajectories as the scheduler's own functions write them (one file per process).

The page is read back as HTML; `test_report_browser.py` loads it in a real browser.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_runner import run

from swift_gym.ms_swift.trajectory_log import episode_record, played_turns


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("runs")
    made = {}
    for policy in ("random", "oracle"):
        path = folder / f"{policy}.jsonl"
        result = run("eval", "frozen_lake", "--policy", policy, "-n", "40", "-o", str(path))
        assert result.returncode == 0, result.stderr
        made[policy] = path
    return made


def training_dir(folder: Path, steps: int = 30, per_step: int = 6, ranks: int = 2) -> Path:
    """What two trainer ranks would write: success rising with the step, two envs mixed."""
    folder.mkdir()
    for rank in range(ranks):
        lines = []
        for sequence in range(steps * per_step):
            step = sequence // per_step
            won = (sequence * 7 + rank) % per_step < 1 + step * per_step // steps
            env = ("frozen_lake", "frozen_lake_ms_swift")[sequence % 2]
            reply = "<action>right</action>" if won else "I do not know \x1b[2J"
            info = {"status": "goal" if won else "invalid_action", "success": won}
            episode = {
                "env": env,
                "env_config": {"name": env, "seed": sequence % 5},
                "system_prompt": "play",
                "observation": "S F\nF G",
                "reset_info": {},
                "error": None,
            }
            turns = played_turns([(reply, "done")], [float(won)], [info], True)
            where = {
                "step": step, "time": 1000.0 + step, "sequence": sequence,
                "host": "node", "pid": 100 + rank, "rank": rank,
            }  # fmt: skip
            lines.append(json.dumps(episode_record(episode, turns, float(won), True, where)))
        (folder / f"node-{100 + rank}-20261201T000000Z.jsonl").write_text("\n".join(lines) + "\n")
    return folder


class Page(HTMLParser):
    """The tables' cell texts by table id, and how many of each tag."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.tags: dict[str, int] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "table":
            self._table = dict(attrs).get("id") or f"table{len(self.tables)}"
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table:
            self.tables[self._table][-1].append(" ".join(" ".join(self._cell).split()))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def row(page: Page, table: str, name: str) -> list[str]:
    return next(cells for cells in page.tables[table] if cells and cells[0] == name)


def test_two_runs_side_by_side_with_a_significant_difference(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "compare.html"
    result = run("report", str(runs["random"]), str(runs["oracle"]), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "(2 runs, 80 episodes)" in result.stderr
    page = Page(out.read_text())
    assert page.tables["summary"][0] == ["measure", "run A", "run B", "B \N{MINUS SIGN} A"]
    rate = row(page, "summary", "success rate")
    assert rate[2].startswith("1.000 95% CI 0.91")  # the oracle always wins
    assert re.match(r"\+0\.\d{3} significant 95% CI \+0\.\d{3} to \+", rate[3])
    assert row(page, "summary", "episodes")[1:3] == ["40", "40"]
    env = row(page, "per-env", "frozen_lake")
    assert "40 episodes" in env[1] and "40 episodes" in env[2]
    assert "success +" in env[3] and "significant" in env[3]
    assert page.tags["details"] == 80  # every episode in the browser


def test_a_run_against_itself_differs_by_nothing_significant(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "same.html"
    assert run("report", str(runs["random"]), str(runs["random"]), "-o", str(out)).returncode == 0
    cell = row(Page(out.read_text()), "summary", "success rate")[3]
    assert cell.startswith("+0.000 not significant")


def test_a_training_directory_has_learning_curves_per_env(tmp_path: Path) -> None:
    folder = training_dir(tmp_path / "trajectories")
    result = run("report", str(folder))
    assert result.returncode == 0, result.stderr
    out = folder / "report.html"  # the default beside the files, not one of them
    html = out.read_text()
    page = Page(html)
    assert row(page, "runs", "A")[2:4] == ["training", "360"]
    assert "success rate over training, run A" in html
    assert "mean reward over training, run A" in html
    assert page.tags["polyline"] == 6  # all, and each of the two envs, in both charts
    assert ">training step</text>" in html
    points = re.findall(r"<title>all: steps? ([0-9.]+)[^:]*: ([0-9.]+)", html)
    assert len(points) == 2 * 20  # 30 steps in 20 bins, in both charts
    assert points[0][0] == "0" and "<title>all: steps 28 to 29: " in html  # whole steps
    first, last = float(points[0][1]), float(points[19][1])
    assert first < 0.4 < 0.9 < last  # the curve rises as the data does
    again = run("report", str(folder), "-o", str(tmp_path / "again.html"))
    assert again.returncode == 0 and "360 episodes" in again.stderr  # report.html is not read


def test_training_and_eval_runs_compare_and_the_browser_keeps_every_status(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    folder = training_dir(tmp_path / "trajectories")
    out = tmp_path / "mixed.html"
    result = run("report", str(folder), str(runs["random"]), "--episodes", "12", "-o", str(out))
    assert result.returncode == 0, result.stderr
    html = out.read_text()
    assert html.count('<details class="episode" data-run="A"') == 12
    assert html.count('<details class="episode" data-run="B"') == 12
    shown_a = re.findall(r'data-run="A" data-env="([^"]*)" data-status="([^"]*)"', html)
    assert set(shown_a) == {  # each (env, status) group of run A, 3 of each
        (env, status)
        for env in ("frozen_lake", "frozen_lake_ms_swift")
        for status in ("goal", "invalid_action")
    }
    assert len(shown_a) == 12
    assert "run A: 12 of 360 episodes" in html and "run B: 12 of 40 episodes" in html
    assert "step 0, rank 0, node pid 100" in html  # where in training each episode was


def test_runs_past_z_are_named_aa_ab(runs: dict[str, Path], tmp_path: Path) -> None:
    # a learning run over 3 seeds reports 30: 21 eval files and 9 training directories
    out = tmp_path / "many.html"
    result = run("report", *[str(runs["random"])] * 28, "--episodes", "1", "-o", str(out))
    assert result.returncode == 0, result.stderr
    header = Page(out.read_text()).tables["summary"][0]
    assert header[1:4] == ["run A", "run B", "run C"]
    assert header[26:29] == ["run Z", "run AA", "run AB"]
    assert header[-1] == "AB \N{MINUS SIGN} A"


def test_bad_inputs_are_clear_errors(runs: dict[str, Path], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("report", str(empty))
    assert result.returncode == 2
    assert "holds no .jsonl file of episodes" in result.stderr
    many = run("report", *[str(runs["random"])] * 101, "-o", str(tmp_path / "x.html"))
    assert many.returncode == 2 and "at most 100 runs" in many.stderr
    cut = tmp_path / "cut.jsonl"
    cut.write_text(runs["oracle"].read_text()[:-200])  # killed mid-line
    partial = run("report", str(cut), "-o", str(tmp_path / "cut.html"))
    assert partial.returncode == 0
    assert "line 40" in partial.stderr and "(1 run, 39 episodes)" in partial.stderr


def test_two_training_runs_share_a_chart_and_keep_their_own_per_env(tmp_path: Path) -> None:
    first = training_dir(tmp_path / "first")
    second = training_dir(tmp_path / "second", steps=10)
    for path in second.iterdir():  # one env only: its curve is only in the shared chart
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        kept = [line for line in lines if line["env"] == "frozen_lake"]
        path.write_text("".join(json.dumps(line) + "\n" for line in kept))
    out = tmp_path / "both.html"
    assert run("report", str(first), str(second), "-o", str(out)).returncode == 0
    html = out.read_text()
    assert 'aria-label="success rate over training, all runs"' in html
    assert "<title>run A: step" in html and "<title>run B: step" in html
    assert 'aria-label="success rate over training, run A"' in html  # A mixes two envs
    assert 'aria-label="success rate over training, run B"' not in html


def test_a_run_with_steps_and_one_with_times_each_get_their_curves(tmp_path: Path) -> None:
    stepped = training_dir(tmp_path / "trainer", ranks=1)
    worker = training_dir(tmp_path / "worker", ranks=1)
    for path in worker.iterdir():  # a swift rollout worker knows no step
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            line["training"]["step"] = None
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "mixed.html"
    assert run("report", str(stepped), str(worker), "-o", str(out)).returncode == 0
    html = out.read_text()
    assert 'aria-label="success rate over training, run A"' in html
    assert 'aria-label="success rate over training, run B"' in html
    assert ">training step</text>" in html and ">time since the first episode (s)</text>" in html


@pytest.mark.parametrize("steps", [[2**53], [2**53, 2**53 + 2], [2**60, 2**60 + 2**8, 2**63 - 1]])
def test_a_report_on_training_steps_of_2_to_the_53_or_more_ends(
    tmp_path: Path, steps: list[int]
) -> None:
    """Steps this large are no longer apart as floats: the axis once looped forever on them."""
    folder = training_dir(tmp_path / "huge", steps=len(steps), per_step=2, ranks=1)
    for path in folder.iterdir():
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            line["training"]["step"] = steps[line["training"]["step"]]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "huge.html"
    result = run("report", str(folder), "-o", str(out), timeout=120)  # a hang fails, not waits
    assert result.returncode == 0, result.stderr
    html = out.read_text()
    assert 'aria-label="success rate over training, run A"' in html
    assert f"<title>all: step {steps[-1]:g}" in html


def test_two_configs_of_one_env_are_two_rows_per_env(tmp_path: Path) -> None:
    runs = []
    for policy in ("random", "oracle"):
        path = tmp_path / f"{policy}.jsonl"
        code = (
            "import swift_gym; swift_gym.evaluate([{'name': 'frozen_lake'}, {'name': "
            f"'frozen_lake', 'size': 6}}], {policy!r}, episodes=10, output={str(path)!r})"
        )
        made = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert made.returncode == 0, made.stderr
        runs.append(str(path))
    out = tmp_path / "configs.html"
    assert run("report", *runs, "-o", str(out)).returncode == 0
    page = Page(out.read_text())
    for label in ("frozen_lake", "frozen_lake size=6"):
        cells = row(page, "per-env", label)
        assert "10 episodes" in cells[1] and "10 episodes" in cells[2]
