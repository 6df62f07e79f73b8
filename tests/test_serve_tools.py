"""Tool envs through `swift-gym serve` and the `openenv` env: the tools at reset, the reply's
tool calls in the step's action, the env's tool results in the step's observation.

FrozenLake's tool mode (`action_format: tool`, the tool `move`) served by a real process on
127.0.0.1, played by the core's `openenv` env and checked turn by turn against a local
FrozenLake on the same config; then through `swift-gym eval` as typed; then the frames
themselves, with a plain WebSocket client: what a client sends wrong is refused and the episode
goes on, an env that answers calls wrongly is the env's error. (reasoning-gym's `python` tool
through a served env: tests/collections/test_served_tools.py, where reasoning-gym is installed.)
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import serve_process
from cli_runner import run

import swift_gym
from swift_gym import StepResult

websockets_sync = pytest.importorskip("websockets.sync.client")

TOOL_MODE = {"action_format": "tool", "size": 5}


@pytest.fixture(scope="module")
def lake() -> Iterator[serve_process.Server]:
    server = serve_process.start("frozen_lake", "--set", "action_format=tool")
    yield server
    server.stop()


def ask(ws: Any, frame: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(frame))
    return json.loads(ws.recv(timeout=30))


def move(direction: str, call_id: str = "call_0") -> dict[str, Any]:
    arguments = json.dumps({"direction": direction})
    return {"id": call_id, "type": "function", "function": {"name": "move", "arguments": arguments}}


async def play_against_local(url: str, seed: int, extra: list[dict[str, Any]]) -> float:
    """An episode through the `openenv` env, each reply (the local oracle's call of `move`, after
    the replies of `extra`) also played on a local FrozenLake: every answer must be the same."""
    row = {"name": "openenv", "base_url": url, "env_config": {**TOOL_MODE, "seed": seed}}
    remote = swift_gym.make(row)
    local = swift_gym.make({"name": "frozen_lake", **TOOL_MODE, "seed": seed})
    text, _, system = await remote.reset()
    local_text, _, local_system = await local.reset()
    assert (text, system) == (local_text, local_system)
    assert list(remote.tools()) == list(local.tools())  # the schemas, as the env offers them
    assert [tool["function"]["name"] for tool in remote.tools()] == ["move"]
    total, done, messages = 0.0, False, []
    replies = iter(extra)
    while not done:
        reply = next(replies, None) or local.oracle_reply()
        messages.append(reply)
        expected = await local.step([reply])
        got = await remote.step(messages)
        assert isinstance(got, StepResult)
        assert got.observation == expected.observation
        assert got.tool_results == expected.tool_results  # ids, names, contents, is_error
        assert (got.reward, got.done) == (expected.reward, expected.done)
        assert got.info["status"] == expected.info["status"]
        total, done = total + got.reward, got.done
    await remote.close()
    return total


def test_the_openenv_env_plays_frozen_lakes_tool_mode_to_the_goal(
    lake: serve_process.Server,
) -> None:
    """Calls of `move` go to the server and its results come back, errors included: a text
    reply (no call), a call of an unknown tool, two calls in one reply, then the oracle."""
    unknown = {**move("up"), "function": {"name": "jump", "arguments": "{}"}}
    mistakes = [
        {"role": "assistant", "content": "<action>down</action>"},
        {"role": "assistant", "content": "", "tool_calls": [unknown]},
        {"role": "assistant", "content": "two", "tool_calls": [move("up", "a"), move("up", "b")]},
    ]

    async def all_seeds() -> list[float]:
        plays = [
            play_against_local(lake.url, seed, mistakes if seed == 0 else []) for seed in range(4)
        ]
        return await asyncio.gather(*plays)

    assert asyncio.run(all_seeds()) == [1.0] * 4


def test_eval_plays_a_served_tool_env_through_the_openenv_env(
    lake: serve_process.Server, tmp_path: Any
) -> None:
    """`swift-gym eval openenv` as typed: the random policy calls `move` from the schema the
    server sent, and every call gets its result in the record."""
    out = tmp_path / "played.jsonl"
    sets = ["--set", f"base_url={lake.url}", "--set", 'env_config={"size": 5}']
    result = run("eval", "openenv", *sets, "-n", "6", "--policy", "random", "-o", str(out),
                 "--json")  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["failed_episodes"] == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    calls = 0
    for record in records:
        assert [tool["function"]["name"] for tool in record["tools"]] == ["move"]
        for turn in record["turns"]:
            made = turn.get("tool_calls", [])
            answered = turn.get("tool_results", [])
            assert [r["tool_call_id"] for r in answered] == [c["id"] for c in made]
            calls += len(made)
    assert calls > 0


def test_frames_of_a_tool_env(lake: serve_process.Server) -> None:
    """The protocol itself: `tools` at reset, `tool_calls` in, `tool_results` out; a text env's
    frames have neither; bad tool_calls are refused and the episode goes on."""
    with websockets_sync.connect(lake.ws_url) as ws:
        reset = ask(ws, {"type": "reset", "data": {"seed": 1}})["data"]["observation"]
        assert [tool["function"]["name"] for tool in reset["tools"]] == ["move"]
        for bad, words in [
            ({"message": "", "tool_calls": {"id": "x"}}, "tool_calls must be a JSON array"),
            ({"message": 5, "tool_calls": []}, "message must be a string"),
            ({"message": "", "tool_calls": [move("up")] * 65}, "at most 64"),
        ]:
            answer = ask(ws, {"type": "step", "data": bad})
            assert answer["type"] == "error" and answer["data"]["code"] == "VALIDATION_ERROR"
            assert words in answer["data"]["message"]
        step = ask(ws, {"type": "step", "data": {"message": None, "tool_calls": [move("up")]}})
        observation = step["data"]["observation"]
        (result,) = observation["tool_results"]
        assert result["tool_call_id"] == "call_0" and result["name"] == "move"
        assert result["is_error"] is False and "up" in result["content"]
        assert observation["text"] == "" and step["data"]["metadata"]["step_count"] == 1
        # a call that cannot be read is still answered, with an error the model reads
        odd = ask(ws, {"type": "step", "data": {"message": "", "tool_calls": [7]}})
        (result,) = odd["data"]["observation"]["tool_results"]
        assert result["is_error"] is True and result["tool_call_id"] == "call_0"
    text_env = serve_process.start("frozen_lake")
    try:
        with websockets_sync.connect(text_env.ws_url) as ws:
            reset = ask(ws, {"type": "reset", "data": {"seed": 1}})["data"]["observation"]
            assert set(reset) == {"text", "system_prompt", "info"}
            step = ask(ws, {"type": "step", "data": {"message": "<action>up</action>"}})
            assert set(step["data"]["observation"]) == {"text", "info"}
    finally:
        text_env.stop()


def test_an_env_that_answers_calls_wrongly_is_the_envs_error() -> None:
    """A step whose results do not answer the calls, or tools that are not valid: an
    EXECUTION_ERROR naming the env, and the server goes on."""
    server = serve_process.start_misbehaving()
    ping = {"id": "call_7", "type": "function", "function": {"name": "ping", "arguments": "{}"}}
    try:
        with websockets_sync.connect(server.ws_url) as ws:
            reset = {"type": "reset", "data": {"env_config": {"name": "answers_no_call"}}}
            assert ask(ws, reset)["data"]["observation"]["tools"][0]["function"]["name"] == "ping"
            answer = ask(ws, {"type": "step", "data": {"message": "", "tool_calls": [ping]}})
            assert answer["type"] == "error" and answer["data"]["code"] == "EXECUTION_ERROR"
            message = answer["data"]["message"]
            assert (
                "env 'answers_no_call'" in message and "gave no result for call 'call_7'" in message
            )
            bad_tools = {"type": "reset", "data": {"env_config": {"name": "answers_no_call",
                         "seed": 1}}}  # fmt: skip
            answer = ask(ws, bad_tools)
            assert answer["type"] == "error" and answer["data"]["code"] == "EXECUTION_ERROR"
            assert "tools() raised" in answer["data"]["message"]
            assert ask(ws, reset)["type"] == "observation"  # the session goes on
    finally:
        server.stop()


def test_a_chat_the_served_env_replaced_is_shown_through_the_openenv_env() -> None:
    """An env that replaces the chat (as an agent program that summarised its history does):
    the step's answer carries the whole chat and the tools offered now; the `openenv` env gives
    them as its `rewritten_context()` and `tools()`, and the server steps on the new chat."""
    server = serve_process.start_misbehaving()
    remote = swift_gym.make({"name": "openenv", "base_url": server.url,
                             "env_config": {"name": "rewrites"}})  # fmt: skip
    ping = {"id": "p1", "type": "function", "function": {"name": "ping", "arguments": "{}"}}
    pong = {"id": "p2", "type": "function", "function": {"name": "pong", "arguments": "{}"}}

    async def play() -> list[Any]:
        await remote.reset()
        seen: list[Any] = [
            remote.rewritten_context(),
            [t["function"]["name"] for t in remote.tools()],
        ]
        first = await remote.step([{"role": "assistant", "content": "", "tool_calls": [ping]}])
        context = remote.rewritten_context()
        seen += [first, context, [t["function"]["name"] for t in remote.tools()]]
        assert context is not None
        last = await remote.step(
            [*context, {"role": "assistant", "content": "", "tool_calls": [pong]}]
        )
        seen += [last, remote.rewritten_context()]
        await remote.close()
        return seen

    try:
        before, tools, first, context, new_tools, last, after = asyncio.run(play())
    finally:
        server.stop()
    assert before is None and tools == ["ping"]
    assert [r.content for r in first.tool_results] == ["pinged"] and not first.done
    assert context == [{"role": "system", "content": "summary: ping was called"},
                       {"role": "user", "content": "now call pong"}]  # fmt: skip
    assert new_tools == ["pong"]
    assert [r.content for r in last.tool_results] == ["ponged"] and last.done
    assert last.info["roles"] == ["system", "user", "assistant"]  # the server's chat was replaced
    assert after is None
