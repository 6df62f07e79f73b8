"""Unit tests of `swift_gym.serving`, in-process: the pure protocol, the worker thread, the env
catalogue and a session on the installed FrozenLake. Real servers and sockets: tests/test_serve.py
and tests/openenv/."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import pytest

import swift_gym
from swift_gym.placement.worker import CallAborted, CallTimeout, EnvWorker
from swift_gym.registry import default_registry
from swift_gym.serving.catalogue import EnvCatalogue
from swift_gym.serving.protocol import (
    INVALID_JSON,
    UNKNOWN_TYPE,
    VALIDATION_ERROR,
    ProtocolError,
    observation_frame,
    parse_frame,
    read_action,
    reply_of,
)
from swift_gym.serving.sessions import Session, SessionTable


@pytest.mark.parametrize(
    ("raw", "code", "words"),
    [
        ("{", INVALID_JSON, "invalid JSON"),
        ('"reset"', INVALID_JSON, "not a string"),
        ('{"type": 3}', UNKNOWN_TYPE, "unknown frame type 3"),
        ('{"type": "step", "data": []}', VALIDATION_ERROR, "not an array"),
        ("[" * 101 + "]" * 101, INVALID_JSON, "nested more than 100"),
        ('{"type": "step", "data": {"message": "' + "x" * 2000 + '"}}', INVALID_JSON, "limit"),
        (b"\xc3", INVALID_JSON, "not UTF-8"),
    ],
)
def test_bad_frames_are_protocol_errors(raw: str | bytes, code: str, words: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_frame(raw, 1024)
    assert caught.value.code == code and words in caught.value.message
    assert json.loads(caught.value.frame())["data"]["code"] == code


def test_a_good_frame_parses_and_data_defaults_to_an_object() -> None:
    assert parse_frame('{"type": "state"}', 1024) == ("state", {})
    assert parse_frame(b'{"type": "reset", "data": {"seed": 1}}', 1024) == ("reset", {"seed": 1})


def test_the_reply_is_the_message_or_the_json_text_of_the_action() -> None:
    assert reply_of({"message": "<action>up</action>", "metadata": {}}) == "<action>up</action>"
    assert reply_of({"message": 5}) == '{"message": 5}'
    assert reply_of({"action": "up"}) == '{"action": "up"}'
    assert reply_of({}) == "{}"


def test_an_action_with_tool_calls_is_read_as_a_reply_that_calls_tools() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "move", "arguments": "{}"}}
    text, calls = read_action({"message": None, "tool_calls": [call]})
    assert text == "" and [(c.id, c.name, c.arguments) for c in calls] == [("c1", "move", "{}")]
    assert read_action({"message": "hi", "tool_calls": None}) == ("hi", [])
    assert read_action({"action": "up"}) == ('{"action": "up"}', [])  # as before tools
    # a call that cannot be read is a call all the same: the env answers it with an error
    (odd,) = read_action({"message": "", "tool_calls": ["junk"]})[1]
    assert (odd.id, odd.name) == ("call_0", "")
    for action, words in [
        ({"message": "", "tool_calls": "move"}, "tool_calls must be a JSON array"),
        ({"message": ["x"], "tool_calls": []}, "message must be a string"),
        ({"message": "", "tool_calls": [call] * 65}, "65 tool calls in one step: at most 64"),
    ]:
        with pytest.raises(ProtocolError, match=words) as caught:
            read_action(action)
        assert caught.value.code == VALIDATION_ERROR


def test_frames_out_are_strict_json_with_surrogates_escaped() -> None:
    text = observation_frame("a\ud800", 1.0, False, {"x": float("nan")}, {})
    assert "\\ud800" in text and "NaN" not in text
    assert json.loads(text)["data"]["observation"]["info"] == {"x": None}


async def test_a_blocking_call_on_the_worker_leaves_the_callers_loop_free() -> None:
    worker = EnvWorker("test-worker")
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    ticker = asyncio.create_task(tick())
    await worker.call(lambda: time.sleep(0.4), timeout=5)
    ticker.cancel()
    assert ticks >= 10
    loops = {await worker.call(asyncio.get_running_loop, 5) for _ in range(3)}
    assert len(loops) == 1 and asyncio.get_running_loop() not in loops  # one loop of its own
    worker.stop()


async def test_a_timed_out_call_keeps_the_worker_busy_until_it_really_returns() -> None:
    worker = EnvWorker("test-worker")
    with pytest.raises(CallTimeout, match=r"within 0\.1 s"):
        await worker.call(lambda: time.sleep(0.6), timeout=0.1)
    assert worker.busy
    await asyncio.sleep(0.8)
    assert not worker.busy
    assert await worker.call(lambda: 7, 5) == 7
    worker.stop()


async def test_sys_exit_on_the_worker_is_contained() -> None:
    worker = EnvWorker("test-worker")
    with pytest.raises(CallAborted, match=r"sys.exit\(4\)"):
        await worker.call(lambda: sys.exit(4), 5)
    assert await worker.call(lambda: "still here", 5) == "still here"
    worker.stop()


def catalogue(**kwargs: object) -> EnvCatalogue:
    return EnvCatalogue(default_registry(), **kwargs)  # type: ignore[arg-type]


def test_the_reset_config_goes_over_the_defaults_of_the_default_env() -> None:
    chosen = catalogue(
        default_env="frozen_lake", defaults={"size": 6, "p": 0.9}, allow=["frozen_lake_ms_swift"]
    )
    name, env_config, episode = chosen.env_config({"env_config": {"size": 5}, "seed": 3})
    assert name == "frozen_lake" and episode is None
    assert env_config == {"name": "frozen_lake", "size": 5, "p": 0.9, "seed": 3}
    # another env does not get the default env's fields
    name, env_config, _ = chosen.env_config({"env_config": {"name": "frozen_lake_ms_swift"}})
    assert env_config == {"name": "frozen_lake_ms_swift"}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"env_config": {"seed": 1}, "seed": 2}, "differ: give one"),
        ({"seed": -1}, "seed must be an integer"),
        ({"seed": True}, "seed must be an integer"),
        ({"env_config": [1]}, "env_config must be a JSON object"),
        ({"env_config": {"name": None}}, "env_config.name is null"),
        ({"env_config": {"sise": 5}}, "did you mean 'size'"),
        ({"episode_id": ""}, "episode_id must be a string"),
        ({"config": {}}, "unknown reset field 'config'"),
    ],
)
def test_bad_reset_data_names_what_to_fix(data: dict[str, object], words: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        catalogue(default_env="frozen_lake").env_config(data)
    assert caught.value.code == VALIDATION_ERROR and words in caught.value.message


def test_without_a_default_env_a_reset_must_name_one_and_names_come_from_the_registry() -> None:
    with pytest.raises(ProtocolError, match="no env name"):
        catalogue().env_config({})
    with pytest.raises(ProtocolError, match=r"env 'os:system' is not served here$"):
        catalogue().env_config({"env_config": {"name": "os:system"}})
    limited = catalogue(allow=["frozen_lake"])
    with pytest.raises(ProtocolError, match=r"not served here; this server plays frozen_lake$"):
        limited.env_config({"env_config": {"name": "frozen_lake_ms_swift"}})
    assert limited.env_config({"env_config": {"name": "frozen_lake"}})[0] == "frozen_lake"


def test_an_env_that_reaches_the_network_is_served_only_when_allowed() -> None:
    from swift_gym.remote.env import OpenEnvEnv
    from swift_gym.serving.catalogue import EnvNotAllowedError

    assert OpenEnvEnv.deployment.reaches_network
    assert not swift_gym.Env.deployment.reaches_network
    with pytest.raises(EnvNotAllowedError, match="--allow openenv"):
        catalogue(default_env="openenv")
    assert catalogue(default_env="openenv", allow=["openenv"]).allowed_names == ["openenv"]
    only_lake = catalogue(default_env="frozen_lake")
    with pytest.raises(ProtocolError, match=r"this server plays frozen_lake$"):
        only_lake.env_config({"env_config": {"name": "openenv", "base_url": "http://x"}})
    with pytest.raises(ProtocolError, match="it reaches the network"):
        catalogue().env_config({"env_config": {"name": "openenv", "base_url": "http://x"}})


MCP_ROW = {"name": "mcp_tools", "mcp_servers": ["calc"], "prompt": "Add 2 and 3.", "answer": "5"}


def test_an_env_that_uses_the_operators_services_is_served_only_when_allowed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`mcp_tools` starts the operator's MCP servers: without NAME it is refused (and the
    operator is told once), as NAME it needs --allow too, and --allow serves it."""
    from swift_gym.mcp.env import McpToolsEnv
    from swift_gym.serving.catalogue import EnvNotAllowedError

    assert McpToolsEnv.deployment.uses_operator_services
    assert not swift_gym.Env.deployment.uses_operator_services
    open_server = catalogue()
    assert open_server.withheld_builtins() == ["mcp_tools", "openenv"]
    with caplog.at_level("WARNING", logger="swift_gym.serving"):
        for _ in range(3):
            with pytest.raises(ProtocolError) as caught:
                open_server.env_config({"env_config": MCP_ROW})
            assert caught.value.code == VALIDATION_ERROR
            assert "it starts the operator's processes" in caught.value.message
            assert "swift-gym serve --allow mcp_tools" in caught.value.message
    told = [r.getMessage() for r in caplog.records if "refused a reset" in r.getMessage()]
    assert told == [
        "swift-gym serve: refused a reset of env mcp_tools: it starts the operator's processes "
        "or reaches the operator's hosts; swift-gym serve --allow mcp_tools serves it"
    ]
    with pytest.raises(EnvNotAllowedError, match="swift-gym serve mcp_tools --allow mcp_tools"):
        catalogue(default_env="mcp_tools")
    allowed = catalogue(allow=["mcp_tools"])
    assert allowed.env_config({"env_config": MCP_ROW})[0] == "mcp_tools"
    assert allowed.withheld_builtins() == ["openenv"]


async def test_an_in_process_session_plays_an_episode_and_refuses_steps_out_of_turn() -> None:
    table = SessionTable(1)
    session = Session(catalogue(default_env="frozen_lake"), table, step_timeout=10)
    assert table.add(session) and not table.add(Session(session.catalogue, table, 10))
    with pytest.raises(ProtocolError, match="no episode yet"):
        await session.handle("step", {"message": "x"})
    first = json.loads(await session.handle("reset", {"seed": 0}))["data"]
    assert first["reward"] is None and first["observation"]["system_prompt"]
    assert session.episode.messages[0]["role"] == "system"
    while True:
        reply = session.env.oracle_reply()  # type: ignore[union-attr]
        answer = json.loads(await session.handle("step", {"message": reply}))["data"]
        if answer["done"]:
            break
    assert answer["reward"] == 1.0 and session.state()["phase"] == "over"
    with pytest.raises(ProtocolError, match="episode is over"):
        await session.handle("step", {"message": reply})
    await session.close()
    assert table.in_use == 0


class _OneEnvCatalogue:
    """A catalogue serving one env class under the name 'odd' (its own registry too)."""

    def __init__(self, env: type) -> None:
        self.env, self.registry = env, self

    def env_config(self, data: dict[str, object]) -> tuple[str, dict[str, object], None]:
        return "odd", {"name": "odd"}, None

    def get_env_class(self, name: str) -> type:
        return self.env

    def requested_env(self, data: dict[str, object]) -> str:
        return "odd"


class _Good:
    def __init__(self, env_config: object) -> None:
        pass

    async def reset(self) -> tuple[str, dict[str, object], str]:
        return "start", {}, "system"

    async def close(self) -> None:
        pass


class _BuildFails(_Good):
    def __init__(self, env_config: object) -> None:
        raise RuntimeError("cannot build")


class _ResetFails(_Good):
    async def reset(self) -> tuple[str, dict[str, object], str]:
        raise RuntimeError("cannot reset")


class _ResetHangs(_Good):
    async def reset(self) -> tuple[str, dict[str, object], str]:
        await asyncio.sleep(30)
        raise AssertionError("not cancelled")


@pytest.mark.parametrize(
    ("env", "words"),
    [
        (_BuildFails, "env 'odd': building the env raised 'RuntimeError: cannot build"),
        (_ResetFails, "env 'odd': reset() raised 'RuntimeError: cannot reset"),
        (_ResetHangs, "env 'odd': reset() did not return within 0.3 s"),
    ],
)
async def test_a_reset_is_one_call_on_the_worker_and_its_errors_say_which_part_failed(
    env: type, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[object] = []
    call = EnvWorker.call

    def counted(self: EnvWorker, function: object, timeout: float) -> object:
        calls.append(function)
        return call(self, function, timeout)  # type: ignore[arg-type]

    monkeypatch.setattr(EnvWorker, "call", counted)
    chosen = _OneEnvCatalogue(_Good)
    session = Session(chosen, SessionTable(1), step_timeout=0.3)  # type: ignore[arg-type]
    await session.handle("reset", {})
    assert len(calls) == 1  # checking the reset, building the env and its reset(): one hop
    assert isinstance(session.env, _Good) and session.state()["env"] == "odd"
    chosen.env = env
    with pytest.raises(ProtocolError) as caught:
        await session.handle("reset", {})
    assert caught.value.code == "EXECUTION_ERROR" and words in caught.value.message
    assert session.state()["phase"] == "broken" and session.state()["env"] == "odd"
    assert (session.env is None) == (env is _BuildFails)
    with pytest.raises(ProtocolError, match="the last reset failed"):
        await session.handle("step", {"message": "x"})
    chosen.env = _Good
    assert json.loads(await session.handle("reset", {}))["data"]["observation"]["text"] == "start"
    await session.close()


async def test_bad_reset_data_is_a_validation_error_of_the_session() -> None:
    session = Session(catalogue(default_env="frozen_lake"), SessionTable(1), step_timeout=10)
    with pytest.raises(ProtocolError) as caught:
        await session.handle("reset", {"seed": -1})
    assert (
        caught.value.code == VALIDATION_ERROR and "seed must be an integer" in caught.value.message
    )
    assert json.loads(await session.handle("reset", {"seed": 0}))["type"] == "observation"
    await session.close()


async def test_the_accept_error_is_logged_at_most_once_per_interval_in_process(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """In-process: the loop's exception handler as asyncio calls it when accept() runs out of
    descriptors (thousands of times a second); other errors still reach the default handler."""
    import errno

    from swift_gym.serving.connections import ACCEPT_ERROR, ConnectionGuard

    loop = asyncio.get_running_loop()
    seen: list[dict[str, object]] = []
    loop.set_exception_handler(lambda loop, context: seen.append(context))
    ConnectionGuard(cap=16, handshake_timeout=1).start(loop)
    error = OSError(errno.EMFILE, "Too many open files")
    with caplog.at_level("ERROR", logger="swift_gym.serving"):
        for _ in range(2000):
            loop.call_exception_handler({"message": ACCEPT_ERROR, "exception": error})
        loop.call_exception_handler({"message": "something else"})
    lines = [r.getMessage() for r in caplog.records if r.name == "swift_gym.serving"]
    assert len(lines) == 1 and "cannot accept connections" in lines[0]
    assert "ulimit -n" in lines[0]
    assert [context["message"] for context in seen] == ["something else"]


def test_the_connection_cap_leaves_room_for_the_workers() -> None:
    from swift_gym.serving.connections import connection_cap

    assert connection_cap(256, 4, "thread") == 256 - 32 - 12
    assert connection_cap(256, 4, "inline") == 256 - 32
    assert connection_cap(None, 4, "thread") == 4 + 1024
    assert connection_cap(1 << 20, 256, "shared") == 256 + 1024
    assert connection_cap(256, 256, "thread") == 16


async def test_an_envs_own_cancelled_error_is_its_failure_on_each_runner_in_process() -> None:
    """In-process: a CancelledError nobody asked for comes back as `CallAborted`, so the
    session answers an error frame instead of ending the connection."""
    from swift_gym.placement.runners import InlineRunner

    async def cancels() -> None:
        raise asyncio.CancelledError

    worker = EnvWorker("test-worker")
    for runner in (worker, InlineRunner()):
        with pytest.raises(CallAborted, match="CancelledError, raised by the env itself"):
            await runner.call(cancels, 5)
        assert await runner.call(lambda: "still here", 5) == "still here"
    worker.stop()
