"""FrozenLake with `action_format: tool`: one `move` function, every call answered."""

from __future__ import annotations

import json

import pytest

from swift_gym import InvalidConfigError, StepResult, offered_tools, tool_calls
from swift_gym.testing import check_env
from swift_gym_frozen_lake import FrozenLakeEnv, MsSwiftFrozenLakeEnv

MOVE_PARAMETERS = {
    "type": "object",
    "properties": {"direction": {"type": "string", "enum": ["up", "down", "left", "right"]}},
    "required": ["direction"],
    "additionalProperties": False,
}


def call(*calls, content=""):
    """An assistant message with `calls` as (id, name, arguments)."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ],
    }


def move(direction, call_id="c1"):
    return call((call_id, "move", json.dumps({"direction": direction})))


async def started(config=None):
    env = FrozenLakeEnv({"seed": 0, "action_format": "tool", **(config or {})})
    observation, _, system_prompt = await env.reset()
    return env, observation, system_prompt


def test_tag_stays_the_default_and_offers_no_tools():
    env = FrozenLakeEnv({"seed": 0})
    assert env.config.action_format == "tag"
    assert env.tools() == []


async def test_tool_mode_offers_exactly_the_move_function():
    env, _, system_prompt = await started()
    tools = offered_tools(env)
    assert tools.names == ("move",)
    assert tools[0]["function"]["parameters"] == MOVE_PARAMETERS
    assert "call move" in system_prompt.lower() or "call the function move" in system_prompt
    assert "<action>" not in system_prompt


async def test_the_oracle_plays_to_the_goal_through_the_env_api():
    for seed in range(20):
        env, _, _ = await started({"seed": seed})
        messages = []
        result = None
        for _ in range(env.optimal_steps):
            reply = env.oracle_reply()
            assert isinstance(reply, dict)
            assert [c.name for c in tool_calls([reply])] == ["move"]
            messages.append(reply)
            result = await env.step(messages)
            assert isinstance(result, StepResult)
            (answer,) = result.tool_results
            assert answer.tool_call_id == reply["tool_calls"][0]["id"]
            assert not answer.is_error
            assert "You moved" in answer.content
            messages.append({"role": "tool", "tool_call_id": answer.tool_call_id, "content": ""})
        assert result.done and result.info["status"] == "goal"
        assert result.reward == 1.0
        assert result.info["metrics"]["success"] == 1.0


async def test_a_valid_call_moves_and_counts_valid():
    env, _, _ = await started({"map": "SFF/FFF/FFG"})
    result = await env.step([move("right")])
    assert env.position == (0, 1)
    assert result.info["status"] == "ok"
    assert result.info["metrics"]["valid_action"] == 1.0
    assert result.tool_results[0].content.startswith("You moved right.")


@pytest.mark.parametrize(
    ("reply", "errors", "why"),
    [
        (move("north"), 1, "do not match its parameters"),
        (call(("c1", "move", '{"direction": "up", "speed": 2}')), 1, "do not match"),
        (call(("c1", "move", "{direction")), 1, "not valid JSON"),
        (call(("c1", "walk", '{"direction": "up"}')), 1, "unknown tool"),
        (
            call(("c1", "move", '{"direction": "down"}'), ("c2", "move", '{"direction": "up"}')),
            2,
            "2 tool calls",
        ),
    ],
    ids=["not_a_direction", "extra_argument", "not_json", "unknown_tool", "two_calls"],
)
async def test_invalid_calls_get_error_results_and_count_invalid(reply, errors, why):
    env, _, _ = await started({"map": "SFF/FFF/FFG", "invalid_action_reward": -0.5})
    result = await env.step([reply])
    assert isinstance(result, StepResult)
    assert env.position == (0, 0)
    assert result.info["status"] == "invalid_action"
    assert result.info["metrics"]["valid_action"] == 0.0
    assert result.reward == -0.5
    assert not result.done
    assert [r.tool_call_id for r in result.tool_results] == [c["id"] for c in reply["tool_calls"]]
    assert len(result.tool_results) == errors
    assert all(r.is_error and r.content.startswith("Error: ") for r in result.tool_results)
    assert why in result.tool_results[0].content
    assert "Call move once" in result.observation


@pytest.mark.parametrize(
    "reply",
    ["<action>right</action>", {"role": "assistant", "content": "<action>right</action>"}],
)
async def test_text_without_a_call_is_invalid_even_a_tag(reply):
    env, _, _ = await started({"map": "SFF/FFF/FFG"})
    result = await env.step([reply] if isinstance(reply, dict) else reply)
    assert env.position == (0, 0)
    assert result.tool_results == ()
    assert result.info["status"] == "invalid_action"
    assert "calls no tool" in result.observation


async def test_calls_after_the_end_are_answered_with_errors():
    env, _, _ = await started({"map": "SG/FF"})
    assert (await env.step([move("right")])).done
    result = await env.step([move("left", "late")])
    assert result.info["status"] == "episode_over"
    (late,) = result.tool_results
    assert late.tool_call_id == "late" and late.is_error


async def test_the_step_limit_still_ends_the_episode():
    env, _, _ = await started({"map": "SFF/FFF/FFG", "max_steps": 2})
    await env.step([move("up")])
    result = await env.step([move("north")])
    assert result.done and result.info["status"] == "max_steps"


async def test_sample_replies_hold_valid_and_invalid_calls_and_text():
    env, _, _ = await started({"map": "SFF/FFF/FFG"})
    samples = env.sample_replies()
    statuses = set()
    for sample in samples:
        probe, _, _ = await started({"map": "SFF/FFF/FFG"})
        result = await probe.step([sample] if isinstance(sample, dict) else sample)
        statuses.add(result.info["status"])
    assert statuses == {"ok", "invalid_action"}
    assert any(isinstance(s, str) for s in samples)
    assert sum(1 for s in samples if isinstance(s, dict) and len(s.get("tool_calls", [])) > 1)


def test_config_validation_of_action_format():
    with pytest.raises(InvalidConfigError) as caught:
        FrozenLakeEnv({"action_format": "tools"})
    assert "action_format" in str(caught.value)
    assert "'tag'" in str(caught.value) and "'tool'" in str(caught.value)
    with pytest.raises(InvalidConfigError) as caught:
        FrozenLakeEnv({"action_format": "tool", "text_style": "ms_swift"})
    assert "action_format" in str(caught.value)
    with pytest.raises(InvalidConfigError) as caught:
        MsSwiftFrozenLakeEnv({"action_format": "tool"})
    assert "action_format" in str(caught.value)
    with pytest.raises(InvalidConfigError) as caught:
        FrozenLakeEnv({"action_format": "tool", "action_parsing": "last_tag"})
    assert "action_parsing" in str(caught.value)


@pytest.mark.parametrize(
    "config",
    [
        {"seed": 3},
        {"seed": 1, "is_slippery": True},
        {"seed": 2, "max_steps": 5, "invalid_action_reward": -0.1},
        {"seed": 4, "size": 8, "p": 0.9},
    ],
    ids=["seeded", "slippery", "max_steps", "large"],
)
def test_tool_mode_conforms(config):
    report = check_env(FrozenLakeEnv, [{**config, "action_format": "tool"}])
    assert report.ok, str(report)
    assert report.steps > report.episodes


def test_the_invalid_hint_says_what_the_tool_accepts():
    from swift_gym_frozen_lake.env import MOVE_TOOL
    from swift_gym_frozen_lake.render import TOOL_HINT

    assert MOVE_TOOL.how[0].upper() + MOVE_TOOL.how[1:] + "." == TOOL_HINT


async def test_text_beside_one_valid_call_is_fine_and_tags_in_it_are_ignored():
    env, _, _ = await started({"map": "SFF/FFF/FFG"})
    reply = call(("c1", "move", '{"direction": "down"}'), content="<action>right</action> so: down")
    result = await env.step([reply])
    assert env.position == (1, 0)
    assert result.info["action"] == "down"
    assert [r.is_error for r in result.tool_results] == [False]
