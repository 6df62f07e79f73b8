"""`action_format: tool` on the games whose move is one value: the call is played as the move."""

from __future__ import annotations

import json

import pytest

from swift_gym import InvalidConfigError, StepResult, offered_tools, tool_calls
from swift_gym.testing import check_env
from swift_gym_textarena.games import env_class
from swift_gym_textarena.ids import TA_IDS

TOOL_IDS = {
    "GuessTheNumber-v0": ("guess", "number", {"type": "integer", "minimum": 1, "maximum": 20}),
    "GuessTheNumber-v0-hardcore": (
        "guess",
        "number",
        {"type": "integer", "minimum": 1, "maximum": 50},
    ),
    "FrozenLake-v0": ("move", "direction", {"enum": ["up", "down", "left", "right"]}),
    "FifteenPuzzle-v0": ("move", "direction", {"enum": ["up", "down", "left", "right"]}),
    "2048-v0-3x3": ("move", "direction", {"enum": ["up", "down", "left", "right"]}),
    "Blackjack-v0": ("play", "action", {"enum": ["hit", "stand"]}),
    "Secretary-v0": ("decide", "decision", {"enum": ["continue", "accept"]}),
    "ThreeCardMonte-v0": ("guess", "cup", {"type": "integer", "minimum": 0, "maximum": 2}),
}
"""A listed id of each game with the option, and its tool."""


def call(*calls, content=""):
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ],
    }


async def started(ta_id, config=None):
    env = env_class(ta_id)({"seed": 0, "action_format": "tool", **(config or {})})
    _, _, system_prompt = await env.reset()
    return env, system_prompt


@pytest.mark.parametrize("ta_id", list(TOOL_IDS))
async def test_each_game_offers_its_move_as_one_function(ta_id):
    name, parameter, spec = TOOL_IDS[ta_id]
    env, system_prompt = await started(ta_id)
    tools = offered_tools(env)
    assert tools.names == (name,)
    parameters = tools[0]["function"]["parameters"]
    assert parameters["required"] == [parameter]
    assert parameters["additionalProperties"] is False
    assert spec.items() <= parameters["properties"][parameter].items()
    assert f"calling the function {name}" in system_prompt
    assert await env_class(ta_id)({"seed": 0}).reset() and env_class(ta_id)({}).tools() == []


@pytest.mark.parametrize("ta_id", list(TOOL_IDS))
async def test_each_value_plays_as_its_bracketed_move(ta_id):
    """A call and the text move it stands for: the same step; and some values are legal now
    (a wall or a board that does not change is TextArena's invalid move, as in text)."""
    name, parameter, spec = TOOL_IDS[ta_id]
    values = spec.get("enum") or [spec["minimum"], spec["maximum"]]
    legal = 0
    for value in values:
        env, _ = await started(ta_id)
        result = await env.step([call(("c1", name, json.dumps({parameter: value})))])
        assert isinstance(result, StepResult)
        (answer,) = result.tool_results
        assert (answer.tool_call_id, answer.name, answer.is_error) == ("c1", name, False)
        text_env = env_class(ta_id)({"seed": 0})
        await text_env.reset()
        observation, reward, done, info = await text_env.step(
            [{"role": "assistant", "content": env._move.move(value)}]
        )
        assert (answer.content, result.reward, result.done, result.info) == (
            observation,
            reward,
            done,
            info,
        )
        legal += info["status"] != "invalid_action"
    assert legal >= 1


@pytest.mark.parametrize("ta_id", ["GuessTheNumber-v0", "GuessTheNumber-v0-hardcore"])
async def test_the_oracle_wins_by_tool_calls(ta_id):
    for seed in range(10):
        env, _ = await started(ta_id, {"seed": seed})
        messages, result = [], None
        for _ in range(10):
            reply = env.oracle_reply()
            assert [c.name for c in tool_calls([reply])] == ["guess"]
            messages.append(reply)
            result = await env.step(messages)
            assert not result.tool_results[0].is_error
            if result.done:
                break
        assert result.done and result.info["metrics"]["success"] == 1.0 and result.reward == 1.0


@pytest.mark.parametrize(
    ("reply", "count", "why"),
    [
        (call(("a", "guess", '{"number": 21}')), 1, "must be at most 20"),
        (call(("a", "guess", '{"number": "7"}')), 1, "do not match"),
        (call(("a", "guess", "")), 1, "do not match"),
        (call(("a", "guess", '{"number": 7}'), ("b", "guess", '{"number": 8}')), 2, "2 tool calls"),
        ({"role": "assistant", "content": "[7]"}, 0, None),
    ],
    ids=["out_of_bounds", "a_string", "no_arguments", "two_calls", "text_move"],
)
async def test_invalid_replies_get_error_results_and_count_invalid(reply, count, why):
    env, _ = await started("GuessTheNumber-v0")
    result = await env.step([reply])
    assert result.info["status"] == "invalid_action"
    assert result.info["metrics"]["valid_action"] == 0.0
    assert result.info["metrics"]["invalid_actions"] == 1.0
    assert not result.done and result.reward == 0.0
    assert len(result.tool_results) == count
    assert all(r.is_error for r in result.tool_results)
    if why:
        assert why in result.tool_results[0].content
    else:
        assert "calls no tool" in result.observation
    assert "Call guess once, with number an integer from 1 to 20." in result.observation
    assert result.info["turn"] == 0  # the game was not called


async def test_the_bounds_follow_the_config():
    env, _ = await started("GuessTheNumber-v0", {"min_number": 5, "max_number": 9})
    spec = offered_tools(env)[0]["function"]["parameters"]["properties"]["number"]
    assert (spec["minimum"], spec["maximum"]) == (5, 9)


async def test_calls_after_the_end_are_refused():
    env, _ = await started("Blackjack-v0", {"num_hands": 1})
    result = None
    for _ in range(30):
        result = await env.step([call(("s", "play", '{"action": "stand"}'))])
        if result.done:
            break
    assert result.done
    after = await env.step([call(("late", "play", '{"action": "hit"}'))])
    assert after.info["status"] == "episode_over"
    assert [(r.tool_call_id, r.is_error) for r in after.tool_results] == [("late", True)]


def test_games_without_a_one_value_move_refuse_tool_mode():
    with pytest.raises(InvalidConfigError) as caught:
        env_class("TowerOfHanoi-v0")({"action_format": "tool"})
    assert "action_format" in str(caught.value)
    assert "GuessTheNumber" in str(caught.value)
    with pytest.raises(InvalidConfigError) as caught:
        env_class("GuessTheNumber-v0")({"action_format": "json"})
    assert "'tag' or 'tool'" in str(caught.value)


@pytest.mark.parametrize("ta_id", [i for i in TA_IDS if TA_IDS[i] in {TA_IDS[t] for t in TOOL_IDS}])
def test_tool_mode_conforms(ta_id):
    report = check_env(
        env_class(ta_id), [{"seed": 0, "action_format": "tool"}], seeds=(0,), max_steps=12
    )
    assert report.ok, str(report)
    assert report.steps > report.episodes


def test_the_games_listing_declares_as_tool_envs_are_those_with_a_tool_move() -> None:
    from swift_gym_textarena.ids import TOOL_GAMES
    from swift_gym_textarena.tool_moves import TOOL_MOVES

    assert set(TOOL_MOVES) == TOOL_GAMES
