"""`action_format: tool`: each env offers its actions as one function with an enum parameter."""

from __future__ import annotations

import json

import pytest

from swift_gym import InvalidConfigError, StepResult, offered_tools, tool_calls
from swift_gym.testing import check_env
from swift_gym_gymnasium import (
    BlackjackEnv,
    CliffWalkingEnv,
    CliffWalkingSlipperyEnv,
    FrozenLake8x8Env,
    FrozenLakeEnv,
    TaxiEnv,
)

TOOLS = {
    FrozenLakeEnv: ("move", "direction", ["left", "down", "right", "up"]),
    FrozenLake8x8Env: ("move", "direction", ["left", "down", "right", "up"]),
    CliffWalkingEnv: ("move", "direction", ["up", "right", "down", "left"]),
    CliffWalkingSlipperyEnv: ("move", "direction", ["up", "right", "down", "left"]),
    TaxiEnv: ("act", "action", ["south", "north", "east", "west", "pickup", "dropoff"]),
    BlackjackEnv: ("play", "action", ["stick", "hit"]),
}
DETERMINISTIC = [
    (FrozenLakeEnv, {"is_slippery": False}),
    (FrozenLake8x8Env, {"is_slippery": False}),
    (CliffWalkingEnv, {}),
    (TaxiEnv, {}),
]


def call(*calls, content=""):
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ],
    }


def tool_env(cls, config=None):
    return cls({"seed": 0, "action_format": "tool", **(config or {})})


async def play(env, limit=300):
    """The oracle to the end through the env API: (results, transcript of the steps)."""
    await env.reset()
    messages, transcript, result = [], [], None
    for _ in range(limit):
        reply = env.oracle_reply()
        messages.append(
            reply if isinstance(reply, dict) else {"role": "assistant", "content": reply}
        )
        result = await env.step(messages)
        _, reward, done, info = result
        transcript.append((reward, done, info["status"], info["gym_action"]))
        if done:
            break
    return result, transcript


@pytest.mark.parametrize("cls", list(TOOLS), ids=lambda cls: cls.gym_id)
async def test_each_env_offers_its_actions_as_one_function(cls):
    name, parameter, choices = TOOLS[cls]
    env = tool_env(cls)
    assert cls({"seed": 0}).tools() == []
    _, _, system_prompt = await env.reset()
    tools = offered_tools(env)
    assert tools.names == (name,)
    assert tools[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {parameter: {"type": "string", "enum": choices}},
        "required": [parameter],
        "additionalProperties": False,
    }
    assert f"call the function {name}" in system_prompt
    assert "<action>" not in system_prompt


@pytest.mark.parametrize(("cls", "config"), DETERMINISTIC, ids=lambda v: getattr(v, "gym_id", ""))
async def test_the_oracle_reaches_success_by_tool_calls(cls, config):
    for seed in range(3):
        env = tool_env(cls, {**config, "seed": seed})
        result, _ = await play(env)
        assert isinstance(result, StepResult)
        assert result.done and result.info["metrics"]["success"] == 1.0


@pytest.mark.parametrize("cls", list(TOOLS), ids=lambda cls: cls.gym_id)
async def test_tool_calls_play_exactly_as_tags(cls):
    """Same seed, the oracle's calls and its tags: the same episode, step by step."""
    for seed in range(5):
        _, by_tools = await play(tool_env(cls, {"seed": seed}), limit=60)
        _, by_tags = await play(cls({"seed": seed}), limit=60)
        assert by_tools == by_tags


async def test_blackjack_oracle_wins_some_hands_by_tool_calls():
    wins = 0
    for seed in range(40):
        result, _ = await play(tool_env(BlackjackEnv, {"seed": seed}))
        (answer,) = result.tool_results
        assert not answer.is_error and answer.name == "play"
        wins += result.info["metrics"]["success"] == 1.0
    assert wins >= 10


async def test_a_valid_call_is_answered_by_its_result():
    env = tool_env(TaxiEnv)
    await env.reset()
    reply = env.oracle_reply()
    (made,) = tool_calls([reply])
    result = await env.step([reply])
    (answer,) = result.tool_results
    assert (answer.tool_call_id, answer.name, answer.is_error) == (made.id, "act", False)
    assert result.info["metrics"]["valid_action"] == 1.0
    assert result.observation == ""
    assert answer.content  # the event and the new state


@pytest.mark.parametrize(
    ("reply", "count", "why"),
    [
        (call(("a", "play", '{"action": "double"}')), 1, "must be one of"),
        (call(("a", "play", '{"action": "hit", "bet": 2}')), 1, "do not match"),
        (call(("a", "play", "[1]")), 1, "must be a JSON object"),
        (call(("a", "move", '{"action": "hit"}')), 1, "unknown tool"),
        (
            call(("a", "play", '{"action": "hit"}'), ("b", "play", '{"action": "hit"}')),
            2,
            "2 tool calls",
        ),
        ({"role": "assistant", "content": "<action>hit</action>"}, 0, None),
    ],
    ids=["not_an_action", "extra_argument", "not_an_object", "unknown_tool", "two_calls", "tag"],
)
async def test_invalid_replies_get_error_results_and_count_invalid(reply, count, why):
    env = tool_env(BlackjackEnv, {"invalid_action_reward": -0.25})
    await env.reset()
    before = env.state
    result = await env.step([reply])
    assert env.state == before
    assert result.info["status"] == "invalid_action"
    assert result.info["metrics"]["valid_action"] == 0.0
    assert result.reward == -0.25 and not result.done
    assert len(result.tool_results) == count
    assert all(r.is_error for r in result.tool_results)
    if why:
        assert why in result.tool_results[0].content
    else:
        assert "calls no tool" in result.observation
    assert "Call play once, with action stick or hit." in result.observation


async def test_calls_after_the_end_are_refused():
    env = tool_env(BlackjackEnv)
    result, _ = await play(env)
    assert result.done
    late = call(("late", "play", json.dumps({"action": "hit"})))
    after = await env.step([late])
    assert after.info["status"] == "episode_over"
    assert [(r.tool_call_id, r.is_error) for r in after.tool_results] == [("late", True)]


async def test_sample_replies_hold_every_action_invalid_calls_and_text():
    env = tool_env(TaxiEnv)
    await env.reset()
    samples = env.sample_replies()
    called = [tool_calls([s]) for s in samples if isinstance(s, dict)]
    valid = {
        json.loads(c[0].arguments)["action"]
        for c in called
        if len(c) == 1 and c[0].name == "act" and c[0].arguments.startswith('{"action"')
    }
    assert set(TOOLS[TaxiEnv][2]) <= valid
    assert any(len(c) == 2 for c in called)
    assert any(isinstance(s, str) for s in samples)


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ({"action_format": "calls"}, "'tag' or 'tool'"),
        ({"action_format": "tool", "action_parsing": "last_tag"}, "drop action_parsing"),
    ],
)
def test_config_validation(config, says):
    assert TaxiEnv({}).config.action_format == "tag"
    with pytest.raises(InvalidConfigError) as caught:
        TaxiEnv(config)
    assert "action_format" in str(caught.value)
    assert says in str(caught.value)


CONFORMANCE = [
    (FrozenLakeEnv, {"seed": 1, "success_rate": 0.5, "max_episode_steps": 5}),
    (FrozenLake8x8Env, {"seed": 4}),
    (CliffWalkingEnv, {"seed": 1, "max_episode_steps": 20, "invalid_action_reward": -5.0}),
    (CliffWalkingSlipperyEnv, {"seed": 7, "max_episode_steps": 30}),
    (TaxiEnv, {"seed": 2, "is_rainy": True, "rainy_probability": 0.6}),
    (BlackjackEnv, {"seed": 9, "sab": False, "natural": True}),
]


@pytest.mark.parametrize(("cls", "config"), CONFORMANCE, ids=lambda v: getattr(v, "gym_id", ""))
def test_tool_mode_conforms(cls, config):
    report = check_env(cls, [{**config, "action_format": "tool"}])
    assert report.ok, str(report)
    assert report.steps > report.episodes
