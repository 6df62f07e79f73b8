"""The learning pipeline over several training seeds: each stage's mean and spread, each goal
judged on every seed, one curve per seed. Unit tests on made-up stage objects (no training):
tests/swift/test_learning_quick.py runs the real pipeline, with one seed."""

from __future__ import annotations

import json
import math
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "learning"))

import markdown_text
import report
import run


def stage(experiment: str, name: str, seed: int, success: float, **extra: object) -> dict:
    """A stage object shaped as report.stage_object writes it, for 200 episodes."""
    low, high = max(0.0, success - 0.05), min(1.0, success + 0.05)
    summary = {
        "episodes": 200, "success_rate": success, "success_rate_ci95": [low, high],
        "mean_reward": success, "mean_reward_ci95": [low, high], "invalid_action_rate": 0.0,
        "mean_turns": 6.0, "statuses": {"goal": round(200 * success)}, "wall_s": 1.0,
        "seed_start": 0, "temperature": 1.0,
    }  # fmt: skip
    return report.stage_object(experiment, name, seed, summary, None, 10, 5.0, **extra)


def curve(success: float) -> list[dict]:
    return [
        {"step_low": s, "step_high": s + 4, "episodes": 32, "success_rate": success,
         "ci_low": success / 2, "ci_high": (1 + success) / 2, "mean_reward": success}
        for s in (0, 5)
    ]  # fmt: skip


def a_objects(ends: list[float]) -> list[dict]:
    objs = []
    for seed, end in enumerate(ends):
        objs.append(stage("A", "format warm start", seed, 0.01))
        objs.append(stage("A", "GRPO", seed, end, curve=curve(end)))
    return objs


def test_across_seeds_gives_mean_sample_sd_and_range_per_stage() -> None:
    rows = report.across_seeds(a_objects([1.0, 0.9, 0.5]))
    assert [r["stage"] for r in rows] == ["format warm start", "GRPO"]
    grpo = rows[1]["success_rate"]
    assert grpo["values"] == [1.0, 0.9, 0.5] and grpo["mean"] == pytest.approx(0.8)
    assert grpo["sd"] == pytest.approx(math.sqrt(((0.2**2) + (0.1**2) + (0.3**2)) / 2))
    assert (grpo["min"], grpo["max"]) == (0.5, 1.0)
    assert rows[0]["success_rate"]["sd"] == pytest.approx(0.0)
    (one,) = report.across_seeds([stage("A", "GRPO", 0, 0.7)])
    assert one["success_rate"]["sd"] is None  # one seed has no spread to report
    assert "| GRPO | 1 | 0.700 | n/a |" in "\n".join(
        report.spread_table([stage("A", "GRPO", 0, 0.7)])
    )


def test_a_goal_is_reached_only_when_every_seed_reaches_it() -> None:
    every = markdown_text.goal_a(a_objects([1.0, 0.95, 0.92]))
    assert "reached on every seed" in every and "not reached" not in every
    missed = markdown_text.goal_a(a_objects([1.0, 0.95, 0.5]))
    assert "not reached (reached on 2 of 3 seeds)" in missed
    for seed in range(3):
        assert f"seed {seed}: start 0.010" in missed
    # a start at or above 0.3 misses the goal too, however high the end
    high_start = a_objects([1.0])
    high_start[0] = stage("A", "format warm start", 0, 0.4)
    assert "not reached (reached on 0 of 1 seeds)" in markdown_text.goal_a(high_start)


def test_b_goal_needs_non_overlapping_intervals_on_every_seed() -> None:
    objs = []
    for seed, (sft, grpo) in enumerate([(0.2, 0.5), (0.2, 0.24)]):
        objs.append(stage("B", "SFT on oracle episodes", seed, sft))
        objs.append(stage("B", "GRPO from SFT", seed, grpo))
    text = markdown_text.goal_b(objs)
    assert "not reached (reached on 1 of 2 seeds)" in text
    assert "seed 0: SFT 0.200" in text and "(+0.300)" in text and "(+0.040)" in text


def test_the_curve_table_has_a_column_per_seed_and_their_mean() -> None:
    lines = report.curve_table({0: curve(0.2), 1: curve(0.6)})
    assert lines[0].count("seed 0: success") == 1 and "seed 1: success" in lines[0]
    assert lines[2].startswith("| 0-4 | 32 | 0.200 [0.100, 0.600] | 0.600 [0.300, 0.800] |")
    assert lines[2].endswith("| 0.400 | 0.400 |")


def test_the_svg_draws_one_line_per_seed_in_its_experiments_colour(tmp_path: Path) -> None:
    path = tmp_path / "curve.svg"
    report.curve_svg({"Experiment A": [curve(0.2), curve(0.9), curve(1.0)],
                      "Experiment B": [curve(0.3)]}, path)  # fmt: skip
    svg = ET.parse(path).getroot()
    lines = svg.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 4
    assert (
        len({line.get("stroke") for line in lines[:3]})
        == 1
        != len({lines[0].get("stroke"), lines[3].get("stroke")})
    )
    legend = [t.text for t in svg.findall("{http://www.w3.org/2000/svg}text")]
    assert "Experiment A (3 seeds)" in legend and "Experiment B" in legend


def test_learning_md_reports_every_seed_and_the_spread(tmp_path: Path) -> None:
    objs = a_objects([1.0, 0.9, 0.5])
    episodes = tmp_path / "eval.jsonl"
    record = {"seed": 0, "turns": [{"action": "down"}], "status": "goal", "total_reward": 1,
              "num_turns": 1}  # fmt: skip
    episodes.write_text(json.dumps(record) + "\n")
    files = {"A": {str(s): {"start": str(episodes), "grpo": str(episodes)} for s in range(3)}}
    meta = {
        "mode": "full", "started": "2026-12-02 00:00 UTC", "total_wall_s": 60, "threads": 2,
        "python": "3.11", "settings": {**run.FULL.__dict__},
        "model": {"parameters": 1, "hidden_size": 64, "layers": 2, "heads": 2, "vocab_size": 9},
        "pinned": {"MKL_CBWR": "AVX2"},
    }  # fmt: skip
    text = markdown_text.learning_markdown(objs, files, [("A0-grpo", "swift rlhf", 1.0)], meta)
    assert "Training seeds: 0..2 (3 runs of each experiment)" in text
    for seed in range(3):
        assert f"| GRPO | {seed} | 10 |" in text
    assert "| GRPO | 3 | 0.800 | 0.265 | 0.500 | 1.000 | 1.000, 0.900, 0.500 |" in text
    assert "not reached (reached on 2 of 3 seeds)" in text
    assert "## What is pinned, and what still varies" in text and "MKL_CBWR=AVX2" in text
    assert "Episodes before and after (seed 0:" in text


def test_full_runs_three_seeds_and_quick_one() -> None:
    assert run.FULL.seeds >= 3 and run.QUICK.seeds == 1
    assert run.override(run.QUICK, ["seeds=2"]).seeds == 2
