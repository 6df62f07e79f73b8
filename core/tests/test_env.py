"""Env: validates its config on construction and runs outside ms-swift."""

from __future__ import annotations

import pytest
from pydantic import Field

from swift_gym import Env, EnvConfig, InvalidConfigError


class EchoConfig(EnvConfig):
    turns: int = Field(2, ge=1, le=10)


class EchoEnv(Env):
    config_model = EchoConfig

    async def reset(self, request=None):
        self.turn = 0
        return "say something", {"turn": 0}, "You are an echo."

    async def step(self, messages):
        self.turn += 1
        done = self.turn >= self.config.turns
        return str(messages[-1]["content"]), 1.0, done, {"turn": self.turn}


def test_config_is_validated_and_raw_dict_kept() -> None:
    raw = {"turns": 3, "seed": 1, "name": "echo"}
    env = EchoEnv(raw)
    assert isinstance(env.config, EchoConfig)
    assert env.config.turns == 3
    assert env.env_config == raw
    assert env.env_config is not raw  # the env cannot mutate the dataset row


def test_bad_config_fails_at_construction_naming_the_row_env() -> None:
    with pytest.raises(InvalidConfigError) as caught:
        EchoEnv({"name": "echo", "turns": 0})
    assert caught.value.env_name == "echo"
    assert caught.value.problems[0].field == "turns"


def test_bad_config_without_name_names_the_class() -> None:
    with pytest.raises(InvalidConfigError, match="'EchoEnv'"):
        EchoEnv({"turn": 2})


def test_garbage_env_config_is_a_config_error() -> None:
    with pytest.raises(InvalidConfigError, match="must be a JSON object"):
        EchoEnv("turns=2")  # type: ignore[arg-type]


def test_no_config_means_defaults() -> None:
    assert EchoEnv().config == EchoConfig()
    assert EchoEnv(None).env_config == {}


def test_a_model_instance_is_accepted() -> None:
    env = EchoEnv(EchoConfig(turns=4))
    assert env.config.turns == 4
    assert env.env_config == {"turns": 4}


async def test_episode_runs_without_a_request_and_close_is_idempotent() -> None:
    env = EchoEnv({"turns": 2})
    observation, info, system = await env.reset()
    assert (observation, info, system) == ("say something", {"turn": 0}, "You are an echo.")
    messages = [{"role": "user", "content": observation}, {"role": "assistant", "content": "hi"}]
    assert await env.step(messages) == ("hi", 1.0, False, {"turn": 1})
    assert (await env.step(messages))[2] is True
    await env.close()
    await env.close()


def test_env_without_reset_and_step_cannot_be_instantiated() -> None:
    class Half(Env):
        async def reset(self, request=None):
            return "", {}, ""

    with pytest.raises(TypeError, match="step"):
        Half()  # type: ignore[abstract]
