"""Configs are strict and bounded, and refuse fields that the id or another field makes moot."""

from __future__ import annotations

import pytest

import swift_gym
from swift_gym import InvalidConfigError


@pytest.mark.parametrize(
    ("name", "config", "field", "words"),
    [
        ("gymnasium.FrozenLake-v1", {"colour": 1}, "colour", "unknown key"),
        ("gymnasium.FrozenLake-v1", {"map_name": "16x16"}, "map_name", "'4x4' or '8x8'"),
        ("gymnasium.FrozenLake-v1", {"is_slippery": "yes"}, "is_slippery", "boolean"),
        ("gymnasium.FrozenLake-v1", {"success_rate": 0.0}, "success_rate", "greater than 0"),
        ("gymnasium.FrozenLake-v1", {"max_episode_steps": 0}, "max_episode_steps", "1"),
        ("gymnasium.FrozenLake-v1", {"max_episode_steps": 10**6}, "max_episode_steps", "1000"),
        ("gymnasium.FrozenLake8x8-v1", {"map_name": "4x4"}, "map_name", "unknown key"),
        ("gymnasium.CliffWalking-v1", {"is_slippery": True}, "is_slippery", "unknown key"),
        ("gymnasium.CliffWalkingSlippery-v1", {"invalid_action_reward": 1e9}, "invalid", "1000000"),
        ("gymnasium.Taxi-v4", {"rainy_probability": 1.5}, "rainy_probability", "1"),
        ("gymnasium.Taxi-v4", {"seed": -1}, "seed", "0"),
        ("gymnasium.Blackjack-v1", {"max_episode_steps": 5}, "max_episode_steps", "unknown"),
        ("gymnasium.Blackjack-v1", {"action_parsing": "upstream"}, "action_parsing", "first_tag"),
    ],
)
def test_bad_fields_name_the_field(name, config, field, words):
    with pytest.raises(InvalidConfigError) as caught:
        swift_gym.make(name, **config)
    text = str(caught.value)
    assert name in text and field in text and words in text, text


@pytest.mark.parametrize(
    ("name", "config", "words"),
    [
        ("gymnasium.FrozenLake-v1", {"is_slippery": False, "success_rate": 0.5}, "is_slippery"),
        ("gymnasium.Taxi-v4", {"rainy_probability": 0.5}, "is_rainy"),
        ("gymnasium.Taxi-v4", {"fickle_probability": 0.5}, "fickle_passenger"),
        ("gymnasium.Blackjack-v1", {"natural": True}, "sab"),
    ],
)
def test_fields_that_would_be_ignored_are_refused(name, config, words):
    with pytest.raises(InvalidConfigError, match=words):
        swift_gym.make(name, **config)


def test_the_defaults_are_gymnasiums():
    lake = swift_gym.make("gymnasium.FrozenLake-v1")
    assert (lake.unwrapped.desc.shape, lake.steps_limit, lake.config.is_slippery) == (
        (4, 4),
        100,
        True,
    )
    assert swift_gym.make("gymnasium.FrozenLake8x8-v1").steps_limit == 200
    assert swift_gym.make("gymnasium.FrozenLake-v1", map_name="8x8").unwrapped.desc.shape == (8, 8)
    assert swift_gym.make("gymnasium.Taxi-v4").steps_limit == 200
    cliff = swift_gym.make("gymnasium.CliffWalking-v1")
    assert (cliff.steps_limit, cliff.unwrapped.is_slippery) == (None, False)
    slippery = swift_gym.make("gymnasium.CliffWalkingSlippery-v1")
    assert slippery.unwrapped.is_slippery is slippery.slippery is True
    assert cliff.slippery is False
    assert swift_gym.make("gymnasium.Blackjack-v1").unwrapped.sab is True


def test_a_config_never_chooses_the_gymnasium_id():
    """gymnasium.make("module:Env") imports a module: the id is the class's, never the row's."""
    from swift_gym_gymnasium.base import make_gym

    for key in ("id", "gym_id", "env_id", "entry_point"):
        with pytest.raises(InvalidConfigError, match="unknown key"):
            swift_gym.make("gymnasium.Taxi-v4", **{key: "os:system"})
    with pytest.raises(ValueError, match="not one of"):
        make_gym("os:system", {}, None)
    with pytest.raises(ValueError, match="not one of"):
        make_gym("Taxi-v3", {}, None)


def test_json_schemas_export():
    for spec in swift_gym.list_envs():
        if spec.name.startswith("gymnasium."):
            schema = swift_gym.get_env_class(spec.name).config_model.model_json_schema()
            assert schema["additionalProperties"] is False
            assert "invalid_action_reward" in schema["properties"]


def test_the_defaults_left_out_of_gymnasium_make_are_gymnasiums():
    """Keys equal to `gym_defaults` are not passed to gymnasium.make: they must be its own."""
    import inspect

    import gymnasium

    for spec in swift_gym.list_envs():
        if not spec.name.startswith("gymnasium."):
            continue
        cls = swift_gym.get_env_class(spec.name)
        gym_spec = gymnasium.spec(cls.gym_id)
        parameters = inspect.signature(
            gym_spec.entry_point and gymnasium.make(cls.gym_id).unwrapped.__class__
        ).parameters
        for key, value in cls.gym_defaults.items():
            assert gym_spec.kwargs.get(key, parameters[key].default) == value, (spec.name, key)
        assert cls.gym_limit == gym_spec.max_episode_steps
        assert set(cls().gym_kwargs()) <= set(cls.gym_defaults)
