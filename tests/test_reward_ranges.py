"""Unit tests of `evaluation.reward_ranges`: what counts as different reward scales, and clips."""

from __future__ import annotations

import math

from swift_gym.evaluation.reward_ranges import (
    clip,
    difference_bounds,
    mixed_scales,
    overall,
    reward_ranges,
)


def test_ranges_are_the_rewards_seen_of_played_episodes_per_env() -> None:
    records = [
        {"env": "a", "total_reward": 1.0, "status": "goal"},
        {"env": "a", "total_reward": None, "status": "error"},  # counts as 0, as in the mean
        {"env": "a", "total_reward": 50.0, "status": "not_played"},
        {"env": "b", "total_reward": math.inf, "status": "done"},
        {"env": "b", "total_reward": -2.0, "status": "done"},
    ]
    assert reward_ranges(records) == {"a": (0.0, 1.0), "b": (-2.0, -2.0)}
    assert overall(reward_ranges(records).values()) == (-2.0, 1.0)
    assert overall([]) is None


def test_scales_differ_past_ten_times_the_narrowest_width() -> None:
    assert not mixed_scales({"a": (0.0, 1.0), "b": (0.0, 10.0)})
    assert mixed_scales({"a": (0.0, 1.0), "b": (0.0, 10.5)})
    assert mixed_scales({"a": (0.0, 1.0), "b": (-1.0, 1.0), "c": (100.0, 200.0)})
    assert not mixed_scales({"a": (0.0, 1.0), "b": (5.0, 5.0)})  # width 0: cannot be told
    assert not mixed_scales({"a": (0.0, 1.0)})


def test_intervals_are_clipped_to_where_the_mean_or_difference_can_be() -> None:
    assert clip([-0.02, 0.07], (0.0, 1.0)) == [0.0, 0.07]
    assert clip([0.5, 1.3], (0.0, 1.0)) == [0.5, 1.0]
    assert clip([math.nan, math.nan], (0.0, 1.0))[0] != clip([0.0, 0.0], (0.0, 1.0))[0]
    assert clip([-3.0, 3.0], None) == [-3.0, 3.0]
    assert difference_bounds((0.0, 1.0), (0.0, 100.0)) == (-1.0, 100.0)
    assert difference_bounds(None, (0.0, 1.0)) is None
