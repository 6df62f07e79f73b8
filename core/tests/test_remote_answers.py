"""What an OpenEnv server answers is untrusted: the `openenv` env against a scripted server, a
real WebSocket server on 127.0.0.1 in a thread of the test process that answers the reset with
an observation and each step with the next frame of its script (or never, for `SILENT`).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("websockets")
from websocket_server import ThreadedServer

from swift_gym.remote.env import OpenEnvEnv
from swift_gym.remote.protocol import ProtocolError, RemoteEnvError, ServerError

SILENT = None
"""A step the script never answers."""
RESET = json.dumps({"type": "observation", "data": {"observation": {"text": "start"}}})


class ScriptedServer(ThreadedServer):
    """Answers the reset with `RESET`, then step i with `script[i]` (raw text, sent as is)."""

    def __init__(self, script: list[str | None], reset: str = RESET) -> None:
        self.script = list(script)
        self.reset = reset
        self.received: list[Any] = []
        """Every frame the client sent, parsed."""
        self.after_silence: list[str] = []
        """Frames the client sent after a step that got no answer."""
        self.close_received: Any = "connection still open"
        """The client's close frame once the connection ended (None: it hung up without one)."""
        self.ended = threading.Event()
        self.start()

    async def handle(self, connection: Any) -> None:
        silent = False
        try:
            async for text in connection:
                self.received.append(json.loads(text))
                if silent:
                    self.after_silence.append(text)
                elif json.loads(text)["type"] == "reset":
                    await connection.send(self.reset)
                elif self.script:
                    answer = self.script.pop(0)
                    silent = answer is SILENT
                    if not silent:
                        await connection.send(answer)
        except Exception:  # the client hung up
            pass
        finally:
            self.close_received = connection.protocol.close_rcvd
            self.ended.set()


@pytest.fixture()
def scripted() -> Iterator[Any]:
    servers: list[ScriptedServer] = []

    def start(*script: str | None, reset: str = RESET) -> ScriptedServer:
        servers.append(ScriptedServer(list(script), reset))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def observation(**data: Any) -> str:
    return json.dumps({"type": "observation", "data": {"observation": {"text": "x"}, **data}})


def step_once(server: ScriptedServer, **config: Any) -> tuple[str, float, bool, dict]:
    env = OpenEnvEnv({"base_url": server.url, **config})

    async def play() -> tuple[str, float, bool, dict]:
        await env.reset()
        try:
            return await env.step([{"role": "assistant", "content": "hi"}])
        finally:
            await env.close()

    return asyncio.run(play())


def test_a_reward_too_big_for_a_float_is_a_protocol_error(scripted: Any) -> None:
    huge = '{"type": "observation", "data": {"observation": {}, "reward": 1' + "0" * 400 + "}}"
    with pytest.raises(ProtocolError, match=r"sent reward 1000+\.\.\.0+, not a finite number"):
        step_once(scripted(huge))
    with pytest.raises(ProtocolError, match="sent reward inf, not a finite number"):
        step_once(scripted(observation(reward=1e400)))
    assert step_once(scripted(observation(reward=10**300)))[1] == 1e300


@pytest.mark.parametrize("done", ["false", "true", 0, 1, [], {}])
def test_done_that_is_not_a_boolean_is_a_protocol_error(scripted: Any, done: Any) -> None:
    with pytest.raises(ProtocolError, match=r"sent done .*, not true or false"):
        step_once(scripted(observation(done=done)))


def test_done_missing_or_null_means_not_done(scripted: Any) -> None:
    server = scripted(observation(), observation(done=None), observation(done=True))
    env = OpenEnvEnv({"base_url": server.url})

    async def play() -> list[bool]:
        await env.reset()
        return [(await env.step([{"role": "assistant", "content": "a"}]))[2] for _ in range(3)]

    assert asyncio.run(play()) == [False, False, True]


def test_an_error_frame_is_bounded_and_escaped(scripted: Any) -> None:
    code = "\x1b]0;pwned\x07\x1b[2J" + "C" * 10_000
    message = "bad\x1b[31m" + "m" * 10_000
    frame = json.dumps({"type": "error", "data": {"code": code, "message": message}})
    with pytest.raises(ServerError) as caught:
        step_once(scripted(frame))
    error = caught.value
    assert error.code.startswith(r"\x1b]0;pwned\x07\x1b[2JCCC") and len(error.code) <= 4 * 100 + 3
    assert str(error).isprintable() and len(str(error)) < 2500
    assert r"bad\x1b[31mmmm" in str(error)


def test_a_timeout_hangs_up_at_once_without_waiting_for_a_close_handshake(
    scripted: Any,
) -> None:
    """A server that does not answer in time may not answer the close handshake either (an env
    that blocks `swift-gym serve`'s loop): waiting for it made the timeout fire up to 3 s late."""
    server = scripted(SILENT)
    with pytest.raises(RemoteEnvError, match=r"no answer within 0\.5s"):
        step_once(server, step_timeout=0.5)
    assert server.ended.wait(10)
    assert server.after_silence == []  # not even the protocol's close frame
    assert server.close_received is None  # nor a WebSocket close handshake


PING = {"type": "function", "function": {"name": "ping", "parameters": {"type": "object"}}}
CALL = {"id": "call_1", "type": "function", "function": {"name": "ping", "arguments": "{}"}}


def reset_offering(tools: Any) -> str:
    return json.dumps({"type": "observation", "data": {"observation": {"text": "start",
                       "tools": tools}}})  # fmt: skip


def answer_with(results: Any) -> str:
    """A step's answer whose observation carries `results` as its tool_results."""
    return json.dumps({"type": "observation", "data": {"observation": {"text": "x",
                       "tool_results": results}}})  # fmt: skip


def call_once(server: ScriptedServer) -> Any:
    env = OpenEnvEnv({"base_url": server.url})

    async def play() -> Any:
        await env.reset()
        try:
            return await env.step([{"role": "assistant", "content": "", "tool_calls": [CALL]}])
        finally:
            await env.close()

    return asyncio.run(play())


def test_tools_and_tool_results_travel_and_a_text_step_sends_what_it_always_sent(
    scripted: Any,
) -> None:
    from swift_gym import StepResult, ToolResult

    result = {"tool_call_id": "call_1", "name": "ping", "content": "pong", "is_error": False}
    server = scripted(answer_with([result]), observation(), reset=reset_offering([PING]))
    env = OpenEnvEnv({"base_url": server.url})

    async def play() -> tuple[Any, Any, Any]:
        await env.reset()
        tools = list(env.tools())
        called = await env.step([{"role": "assistant", "content": "", "tool_calls": [CALL]}])
        said = await env.step([{"role": "assistant", "content": "done"}])
        await env.close()
        return tools, called, said

    tools, called, said = asyncio.run(play())
    assert tools == [PING]
    assert called == StepResult("x", 0.0, False, {}, (ToolResult("call_1", "ping", "pong"),))
    assert isinstance(said, StepResult) and said.tool_results == ()  # a tool env's step
    steps = [frame["data"] for frame in server.received if frame["type"] == "step"]
    assert steps == [{"message": "", "tool_calls": [CALL]}, {"message": "done"}]
    # a server that offers no tools: the 4-tuple, as before tools
    assert step_once(scripted(observation())) == ("x", 0.0, False, {})


@pytest.mark.parametrize(
    ("tools", "words"),
    [
        ({"ping": PING}, "sent tools {'ping': .*, not a list of tools"),
        (
            [{"type": "function", "function": {"name": "two words"}}],
            "invalid tools offered by .the server at ws://127",
        ),
    ],
)
def test_tools_that_are_not_valid_are_a_protocol_error(
    scripted: Any, tools: Any, words: str
) -> None:
    with pytest.raises(ProtocolError, match=words):
        step_once(scripted(observation(), reset=reset_offering(tools)))


@pytest.mark.parametrize(
    "results",
    [
        {"call_1": "pong"},
        ["pong"],
        [{"tool_call_id": "call_1", "name": "ping", "content": 5}],
        [{"tool_call_id": "call_1", "name": "ping", "content": "pong", "is_error": "no"}],
    ],
)
def test_tool_results_of_the_wrong_shape_are_a_protocol_error(scripted: Any, results: Any) -> None:
    with pytest.raises(ProtocolError, match="sent tool_results"):
        call_once(scripted(answer_with(results), reset=reset_offering([PING])))
