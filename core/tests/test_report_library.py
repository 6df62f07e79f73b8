"""The HTML report from Python, as a notebook makes it: no command, no subprocess.

A real trajectory file (`evaluate(output=...)`, as `eval -o` writes it) whose model replies with
markup and terminal controls; the page holds every episode and none of the markup as markup.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import swift_gym
from swift_gym.evaluation import EvalResult
from swift_gym.report import Run, render_html, write_html

HOSTILE = '</pre><script>alert("x")</script><img src=x onerror=alert(1)>\x1b[2J\u202eevil'


def hostile_model(messages: list[dict], env: object) -> str:
    return HOSTILE


@pytest.fixture(scope="module")
def trajectory_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "hostile.jsonl"
    swift_gym.evaluate("frozen_lake", hostile_model, episodes=6, max_turns=2, output=str(path))
    return path


def episode_ids(page: str) -> list[str]:
    return re.findall(r'<details class="episode"[^>]* id="(episode-[A-Z]+-\d+)"', page)


def test_a_file_renders_with_every_episode_and_no_markup_from_the_model(
    trajectory_file: Path,
) -> None:
    page = render_html(trajectory_file)
    assert episode_ids(page) == [f"episode-A-{k}" for k in range(6)]
    assert page.count("<script>") == 1  # the page's own filter script, nothing of the model's
    assert "<img" not in page and "\x1b" not in page and "\u202e" not in page
    shown = (
        "&lt;/pre&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x "
        'onerror=alert(1)&gt;<span class="esc">\\x1b</span>[2J<span class="esc">\\u202e</span>evil'
    )
    assert page.count(shown) == 6 * 2  # each episode's two replies, escaped and visible


def test_runs_from_a_file_an_eval_result_and_records_compare_in_one_page(
    trajectory_file: Path, tmp_path: Path
) -> None:
    oracle = swift_gym.evaluate("frozen_lake", "oracle", episodes=4)
    runs = [trajectory_file, oracle, oracle.records]
    page = render_html(runs, episodes=2)
    shown = ["A-0", "A-3", "B-0", "B-2", "C-0", "C-2"]  # two of each run's, spread evenly
    assert episode_ids(page) == [f"episode-{each}" for each in shown]
    assert f"<b>A</b></td><td>{trajectory_file}</td>" in page
    assert "<b>B</b></td><td>EvalResult</td>" in page and "<b>C</b></td><td>records</td>" in page
    assert "B &minus; A" in page and "C &minus; A" in page  # compared with the first run
    written = write_html(tmp_path / "page.html", [Run("X", "mine", oracle.records)])
    assert episode_ids(written.read_text(encoding="utf-8")) == [f"episode-X-{k}" for k in range(4)]
    assert EvalResult.load(trajectory_file).episodes == 6


def test_what_is_no_run_is_told() -> None:
    with pytest.raises(ValueError, match="at least one run"):
        render_html([])
    with pytest.raises(TypeError, match="not int"):
        render_html([3])
