"""Episodes, policies and the optional Env methods, in-process with small envs."""

from __future__ import annotations

import random
from typing import Any

import pytest

from swift_gym import Env
from swift_gym.episode.status import succeeded, valid_action
from swift_gym.evaluation.episodes import EpisodeSpec, run_episode
from swift_gym.evaluation.openai import reply_content
from swift_gym.evaluation.policies import GENERIC_REPLIES, OraclePolicy, PolicyError, RandomPolicy


class Countdown(Env):
    """Done after `3` valid replies ("go"); anything else is an invalid action."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        self.left = 3
        return "3 left", {}, "Say go."

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        valid = messages[-1]["content"] == "go"
        self.left -= valid
        done = self.left == 0
        return f"{self.left} left", float(done), done, {"action": "go" if valid else None}

    def oracle_reply(self) -> str:
        return "go"

    def sample_replies(self) -> tuple[str, ...]:
        return ("go", "stop")


class Plain(Countdown):
    oracle_reply = Env.oracle_reply
    sample_replies = Env.sample_replies


class StepFails(Countdown):
    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        raise RuntimeError("boom")


class Registry:
    """Stands in for the registry: every name is `cls`."""

    def __init__(self, cls: type[Env]):
        self.cls = cls

    def get_env_class(self, name: str) -> type[Env]:
        return self.cls


def test_env_base_offers_no_oracle_and_no_sample_replies() -> None:
    env = Plain({})
    with pytest.raises(NotImplementedError, match="oracle_reply"):
        env.oracle_reply()
    assert tuple(env.sample_replies()) == ()


async def test_oracle_episode_is_recorded_turn_by_turn() -> None:
    spec = EpisodeSpec(0, "countdown", {"name": "countdown", "seed": 7})
    record = await run_episode(spec, OraclePolicy(), 10, Registry(Countdown))
    assert record["status"] == "done"
    assert record["success"] is True
    assert record["num_turns"] == 3
    assert record["system_prompt"] == "Say go."
    assert record["observation"] == "3 left"
    assert [turn["reply"] for turn in record["turns"]] == ["go"] * 3
    assert record["turns"][-1]["observation"] == "0 left"
    assert record["seed"] == 7
    assert record["error"] is None


async def test_random_policy_draws_from_sample_replies_and_stops_at_max_turns() -> None:
    spec = EpisodeSpec(1, "countdown", {"seed": 1})
    record = await run_episode(spec, RandomPolicy(), 2, Registry(Countdown))
    assert {turn["reply"] for turn in record["turns"]} <= {"go", "stop"}
    assert record["num_turns"] == 2
    assert record["status"] == "max_turns"
    assert record["success"] is False


async def test_random_policy_falls_back_to_generic_replies() -> None:
    rng = random.Random(0)
    replies = {await RandomPolicy().reply(Plain({}), [], rng) for _ in range(200)}
    assert {reply.text for reply in replies} == set(GENERIC_REPLIES)
    assert not any(reply.calls for reply in replies)


async def test_oracle_without_oracle_reply_is_a_policy_error() -> None:
    with pytest.raises(PolicyError, match="has no oracle"):
        await OraclePolicy().reply(Plain({}), [], random.Random(0))


async def test_an_env_that_raises_ends_only_its_episode() -> None:
    record = await run_episode(EpisodeSpec(2, "x", {}), OraclePolicy(), 5, Registry(StepFails))
    assert record["status"] == "error"
    assert record["error"] == "step() raised RuntimeError: boom"
    assert record["success"] is False


def test_valid_action_and_success_read_common_info_shapes() -> None:
    assert valid_action({"metrics": {"valid_action": 0.0}}) is False
    assert valid_action({"action": "up"}) is True
    assert valid_action({"parsed_action": None}) is False
    assert valid_action({"other": 1}) is None
    assert succeeded({"metrics": {"success": 1.0}}, True, 0.0) is True
    assert succeeded({"success": False}, True, 5.0) is False
    assert succeeded({}, True, 1.0) is True
    assert succeeded({}, False, 1.0) is False


def test_reply_content_reads_openai_payloads() -> None:
    assert reply_content({"choices": [{"message": {"content": "hi"}}]}) == "hi"
    assert reply_content({"choices": [{"message": {"content": None}}]}) == ""
    parts = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert reply_content({"choices": [{"message": {"content": parts}}]}) == "ab"
    with pytest.raises(PolicyError, match="malformed response"):
        reply_content({"error": "x"})
