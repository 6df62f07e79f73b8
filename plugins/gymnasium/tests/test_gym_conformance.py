"""Every env keeps the swift-gym contract: the conformance kit over a few configs each."""

from __future__ import annotations

import pytest

from swift_gym.testing import check_env, conformance_tests
from swift_gym_gymnasium import (
    BlackjackEnv,
    CliffWalkingEnv,
    CliffWalkingSlipperyEnv,
    FrozenLake8x8Env,
    FrozenLakeEnv,
    TaxiEnv,
)


def tags(*names: str) -> list[str]:
    return [f"<action>{name}</action>" for name in names]


GRID = tags("left", "down", "right", "up")

test_frozen_lake = conformance_tests(
    FrozenLakeEnv,
    [
        {},
        {"seed": 3, "is_slippery": False},
        {"seed": 1, "success_rate": 0.5, "max_episode_steps": 5},
        {"seed": 2, "map_name": "8x8", "action_parsing": "single_tag"},
    ],
    ids=["default", "dry", "short_slippery", "8x8_single_tag"],
    sample_replies=GRID,
)
test_frozen_lake_8x8 = conformance_tests(
    FrozenLake8x8Env, [{"seed": 4}, {"seed": 5, "is_slippery": False}], sample_replies=GRID
)
test_cliff_walking = conformance_tests(
    CliffWalkingEnv,
    [{"seed": 0}, {"seed": 1, "max_episode_steps": 20, "invalid_action_reward": -5.0}],
    ids=["default", "limited"],
    sample_replies=GRID,
)
test_cliff_walking_slippery = conformance_tests(
    CliffWalkingSlipperyEnv, [{}, {"seed": 7, "max_episode_steps": 30}], sample_replies=GRID
)
test_taxi = conformance_tests(
    TaxiEnv,
    [
        {},
        {"seed": 2, "is_rainy": True, "rainy_probability": 0.6},
        {"seed": 3, "fickle_passenger": True, "fickle_probability": 1.0, "max_episode_steps": 40},
    ],
    ids=["default", "rainy", "fickle"],
    sample_replies=tags("south", "north", "east", "west", "pickup", "dropoff"),
)
test_blackjack = conformance_tests(
    BlackjackEnv,
    [{}, {"seed": 9, "sab": False, "natural": True, "action_parsing": "last_tag"}],
    ids=["sab", "natural"],
    sample_replies=tags("stick", "hit"),
)


@pytest.mark.parametrize("name", ["gymnasium.Taxi-v4", "gymnasium.FrozenLake8x8-v1"])
def test_the_registered_names_conform_too(name):
    report = check_env(name, [{"seed": 0}])
    assert report.ok, str(report)
    assert report.env == name
    assert report.steps > report.episodes  # the episodes went past the first move
