"""The installed distribution: public names and the `swift_gym.envs` entry point."""

from __future__ import annotations

from importlib.metadata import distribution, entry_points

import swift_gym
import swift_gym_frozen_lake
from swift_gym_frozen_lake import FrozenLakeEnv


def test_public_names():
    assert set(swift_gym_frozen_lake.__all__) >= {
        "FrozenLakeEnv",
        "FrozenLakeConfig",
        "generate_random_map",
        "solve",
        "parse_action",
        "SYSTEM_PROMPT",
        "ACTIONS",
    }
    assert swift_gym_frozen_lake.ACTIONS == ("up", "down", "left", "right")
    assert issubclass(FrozenLakeEnv, swift_gym.Env)
    assert FrozenLakeEnv.config_model is swift_gym_frozen_lake.FrozenLakeConfig


def test_entry_point_names_the_env_class():
    (entry_point,) = [ep for ep in entry_points(group="swift_gym.envs") if ep.name == "frozen_lake"]
    assert entry_point.value == "swift_gym_frozen_lake:FrozenLakeEnv"
    assert entry_point.load() is FrozenLakeEnv
    dist = distribution("swift-gym-frozen-lake")
    assert dist.version == swift_gym_frozen_lake.__version__ == "0.1.0"
    assert any(req.startswith("swift-gym") for req in dist.requires or [])
