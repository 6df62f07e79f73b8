"""`swift-gym serve frozen_lake` driven by openenv's real `GenericEnvClient`, async and `.sync()`.

Runs in tox's `openenv` (openenv 0.10.0) and `openenv03` (openenv-core 0.3.0) environments,
which install the same `openenv` package and conflict; elsewhere it is skipped. Every server is
a real `swift-gym serve` process on 127.0.0.1. The oracle's replies come from a local
FrozenLake on the same config, stepped beside the remote one: the two must say the same.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import signal
import socket
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import serve_process

pytest.importorskip("openenv.core.generic_client")
from openenv.core.generic_client import GenericEnvClient

import swift_gym

HEADERS = "headers" in inspect.signature(GenericEnvClient.__init__).parameters
"""openenv 0.10.0's client can send headers (a bearer token); openenv-core 0.3.0's cannot."""


@pytest.fixture(scope="module")
def server() -> Iterator[serve_process.Server]:
    started = serve_process.start("frozen_lake", "--max-sessions", "300")
    yield started
    started.stop()


def mirror(env_config: dict[str, Any]) -> swift_gym.Env:
    return swift_gym.make({"name": "frozen_lake", **env_config})


async def play_oracle(client: Any, env_config: dict[str, Any]) -> float:
    """One oracle episode on `client` (async), checked turn by turn against a local env."""
    local = mirror(env_config)
    text, _info, system_prompt = await local.reset()
    result = await client.reset(env_config=env_config)
    assert result.observation["text"] == text
    assert result.observation["system_prompt"] == system_prompt
    assert result.done is False
    total = 0.0
    for _ in range(50):
        reply = local.oracle_reply()
        text, reward, done, info = await local.step([{"role": "assistant", "content": reply}])
        result = await client.step({"message": reply})
        assert result.observation["text"] == text
        assert result.observation["info"]["status"] == info["status"]
        assert result.reward == reward and result.done == done
        total += result.reward
        if result.done:
            return total
    raise AssertionError("the oracle did not finish in 50 steps")


def play_oracle_sync(client: Any, env_config: dict[str, Any]) -> float:
    local = mirror(env_config)
    text, _info, _system = asyncio.run(local.reset())
    result = client.reset(env_config=env_config)
    assert result.observation["text"] == text
    total = 0.0
    while not result.done:
        reply = local.oracle_reply()
        text, *_ = asyncio.run(local.step([{"role": "assistant", "content": reply}]))
        result = client.step({"message": reply})
        assert result.observation["text"] == text
        total += result.reward
    return total


async def test_oracle_episodes_reach_the_goal_async(server: serve_process.Server) -> None:
    async with GenericEnvClient(base_url=server.url) as client:
        for seed in range(3):  # one connection, episode after episode
            assert await play_oracle(client, {"seed": seed, "size": 5}) == 1.0
        state = await client.state()
        assert state["env"] == "frozen_lake" and state["done"] is True and state["step_count"] > 0


def test_oracle_episode_reaches_the_goal_sync(server: serve_process.Server) -> None:
    with GenericEnvClient(base_url=server.url).sync() as client:
        assert play_oracle_sync(client, {"seed": 11}) == 1.0
        # the seed may also come as a reset argument of its own, as openenv's clients send it
        result = client.reset(seed=11)
        assert result.observation["text"] == asyncio.run(mirror({"seed": 11}).reset())[0]


async def test_a_bad_env_config_is_an_error_frame_naming_the_field(
    server: serve_process.Server,
) -> None:
    async with GenericEnvClient(base_url=server.url) as client:
        with pytest.raises(RuntimeError) as caught:
            await client.reset(env_config={"size": "big", "colour": 1})
        message = str(caught.value)
        assert "VALIDATION_ERROR" in message
        assert "env_config.size" in message and "env_config.colour" in message
        with pytest.raises(RuntimeError, match="send a reset"):
            await client.step({"message": "<action>up</action>"})
        assert await play_oracle(client, {"seed": 1}) == 1.0  # the session goes on


def test_step_before_reset_and_after_done_are_errors_sync(server: serve_process.Server) -> None:
    with GenericEnvClient(base_url=server.url).sync() as client:
        with pytest.raises(RuntimeError, match="no episode yet: send a reset first"):
            client.step({"message": "<action>up</action>"})
        assert play_oracle_sync(client, {"seed": 2}) == 1.0
        with pytest.raises(RuntimeError, match="episode is over"):
            client.step({"message": "<action>up</action>"})


async def test_a_reply_ms_swift_sends_as_an_object_is_played_as_its_json_text(
    server: serve_process.Server,
) -> None:
    async with GenericEnvClient(base_url=server.url) as client:
        await client.reset(env_config={"seed": 0})
        result = await client.step({"action": "up"})  # the model wrote {"action": "up"}
        assert result.observation["info"]["status"] == "invalid_action"
        assert result.done is False


async def test_256_concurrent_sessions_all_finish(server: serve_process.Server) -> None:
    async def one(seed: int) -> float:
        async with GenericEnvClient(base_url=server.url) as client:
            return await play_oracle(client, {"seed": seed})

    started = time.monotonic()
    totals = await asyncio.gather(*(one(seed) for seed in range(256)))
    assert totals == [1.0] * 256
    assert time.monotonic() - started < 60


async def test_capacity_refuses_the_session_past_it() -> None:
    small = serve_process.start("frozen_lake", "--max-sessions", "2")
    try:
        first, second = GenericEnvClient(base_url=small.url), GenericEnvClient(base_url=small.url)
        await first.reset(seed=0)
        await second.reset(seed=1)
        third = GenericEnvClient(base_url=small.url)
        with pytest.raises(Exception, match="CAPACITY_REACHED"):
            await third.reset(seed=2)
        await third.close()
        await first.close()
        assert serve_process.wait_until(lambda: metadata(small)["sessions"] == 1)
        async with GenericEnvClient(base_url=small.url) as fourth:
            assert await play_oracle(fourth, {"seed": 3}) == 1.0
        await second.close()
    finally:
        small.stop()


def metadata(server: serve_process.Server, token: str | None = None) -> dict[str, Any]:
    request = urllib.request.Request(server.url + "/metadata")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


async def test_idle_sessions_are_reaped() -> None:
    quick = serve_process.start("frozen_lake", "--idle-timeout", "0.5")
    try:
        client = GenericEnvClient(base_url=quick.url)
        await client.reset(seed=0)
        assert metadata(quick)["sessions"] == 1
        assert serve_process.wait_until(lambda: metadata(quick)["sessions"] == 0, timeout=5)
        # 0.10.0 reads the server's last word; 0.3.0 finds the connection closed
        with pytest.raises(Exception) as caught:
            await client.step({"message": "<action>up</action>"})
        if HEADERS:
            assert "without a frame (swift-gym serve --idle-timeout)" in str(caught.value)
        await client.close()
    finally:
        quick.stop()


def test_the_token_is_required_when_set(tmp_path: Any) -> None:
    secured = serve_process.start(
        "frozen_lake", "--token-env", "SERVE_TOKEN", env={"SERVE_TOKEN": "s3cret-token"}
    )
    try:
        with pytest.raises(ConnectionError, match="401"):
            GenericEnvClient(base_url=secured.url).sync().reset(seed=0)
        if HEADERS:
            wrong = GenericEnvClient(base_url=secured.url, headers={"Authorization": "Bearer no"})
            with pytest.raises(ConnectionError, match="401"):
                wrong.sync().reset(seed=0)
            right = {"Authorization": "Bearer s3cret-token"}
            with GenericEnvClient(base_url=secured.url, headers=right).sync() as client:
                assert play_oracle_sync(client, {"seed": 4}) == 1.0
        with pytest.raises(urllib.error.HTTPError, match="401"):
            metadata(secured)
        assert metadata(secured, "s3cret-token")["default_env"] == "frozen_lake"
    finally:
        secured.stop()


async def test_the_allow_list_refuses_other_envs() -> None:
    async with GenericEnvClient(base_url=SERVERS["open"].url) as client:
        result = await client.reset(env_config={"name": "frozen_lake_ms_swift", "seed": 0})
        assert result.observation["text"]
    limited = serve_process.start("frozen_lake", "--allow", "frozen_lake")
    try:
        async with GenericEnvClient(base_url=limited.url) as client:
            served = "not served here; this server plays frozen_lake"
            with pytest.raises(RuntimeError, match=served):
                await client.reset(env_config={"name": "frozen_lake_ms_swift", "seed": 0})
            with pytest.raises(RuntimeError, match="not served here"):
                await client.reset(env_config={"name": "os:system"})
            assert await play_oracle(client, {"seed": 5}) == 1.0
    finally:
        limited.stop()


SERVERS: dict[str, serve_process.Server] = {}


@pytest.fixture(scope="module", autouse=True)
def open_server() -> Iterator[None]:
    """A server with no default env and no allow list: any installed env by name."""
    SERVERS["open"] = serve_process.start()
    yield
    SERVERS.pop("open").stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_server_killed_and_restarted_mid_episode() -> None:
    port = str(free_port())
    first = serve_process.start("frozen_lake", "--port", port)
    client = GenericEnvClient(base_url=first.url)
    local = mirror({"seed": 6})
    await local.reset()
    await client.reset(env_config={"seed": 6})
    await client.step({"message": local.oracle_reply()})
    first.stop(signal.SIGKILL)
    with pytest.raises(Exception):  # noqa: B017 - the connection is gone: any client error
        await client.step({"message": "<action>up</action>"})
    second = serve_process.start("frozen_lake", "--port", port)
    try:
        if HEADERS:  # 0.10.0 reconnects: the new server knows no episode, and says to reset
            with pytest.raises(RuntimeError, match="send a reset first"):
                await client.step({"message": "<action>up</action>"})
            assert await play_oracle(client, {"seed": 6}) == 1.0
        await client.close()
        async with GenericEnvClient(base_url=second.url) as fresh:
            assert await play_oracle(fresh, {"seed": 6}) == 1.0
    finally:
        second.stop()


async def test_a_tool_env_plays_through_the_client_with_tool_calls_and_results() -> None:
    """FrozenLake's tool mode: the client's action is a dict like any other, so a reply's
    `tool_calls` go as they are, the reset's observation offers `tools` and each step's holds
    `tool_results`, checked against a local FrozenLake in tool mode."""
    served = serve_process.start("frozen_lake", "--set", "action_format=tool")
    env_config = {"size": 5, "seed": 3}
    local = mirror({**env_config, "action_format": "tool"})
    try:
        async with GenericEnvClient(base_url=served.url) as client:
            text, _info, _system = await local.reset()
            result = await client.reset(env_config=env_config)
            assert result.observation["text"] == text
            assert result.observation["tools"] == list(local.tools())
            done = False
            while not done:
                reply = local.oracle_reply()
                expected = await local.step([reply])
                action = {"message": reply["content"], "tool_calls": reply["tool_calls"]}
                result = await client.step(action)
                (call,) = reply["tool_calls"]
                (got,) = result.observation["tool_results"]
                (want,) = expected.tool_results
                assert got["tool_call_id"] == call["id"] == want.tool_call_id
                assert (got["name"], got["content"]) == (want.name, want.content)
                assert result.reward == expected.reward and result.done == expected.done
                done = result.done
            assert result.reward == 1.0
    finally:
        served.stop()
