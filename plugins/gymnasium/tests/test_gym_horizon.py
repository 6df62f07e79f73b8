"""Each env's natural horizon (`max_turns_hint`) is eval's default turn limit, so the oracle
is never cut off before Gymnasium's own time limit (or its goal, where there is none)."""

from __future__ import annotations

import json

import pytest
from cli_runner import run

import swift_gym


@pytest.mark.parametrize("name", ["gymnasium.Taxi-v4", "gymnasium.CliffWalking-v1"])
def test_done_when_the_oracle_succeeds_with_no_extra_flag(name: str) -> None:
    result = run("eval", name, "--policy", "oracle", "-n", "20", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["success_rate"] == 1.0
    assert summary["cut_off"] == 0
    assert summary["max_turns"] == swift_gym.make(name).max_turns_hint()


@pytest.mark.parametrize(
    ("config", "horizon"),
    [
        ({"name": "gymnasium.Taxi-v4"}, 200),
        ({"name": "gymnasium.Taxi-v4", "max_episode_steps": 30}, 30),
        ({"name": "gymnasium.FrozenLake-v1"}, 100),
        ({"name": "gymnasium.FrozenLake8x8-v1"}, 200),
        ({"name": "gymnasium.CliffWalking-v1", "max_episode_steps": 50}, 50),
    ],
)
def test_the_horizon_is_gymnasiums_time_limit(config: dict[str, object], horizon: int) -> None:
    assert swift_gym.make(config).max_turns_hint() == horizon


@pytest.mark.parametrize("name", ["gymnasium.CliffWalking-v1", "gymnasium.CliffWalkingSlippery-v1"])
def test_without_a_time_limit_the_horizon_still_lets_the_oracle_finish(name: str) -> None:
    result = swift_gym.evaluate(name, "oracle", episodes=30)
    assert result.success_rate == 1.0
    assert result.cut_off == 0
    assert swift_gym.make(name).max_turns_hint() >= max(r["num_turns"] for r in result.records)
