"""`eval --policy oracle` through a served env, in-process: the server's side (a session answers
an oracle frame only where its env has an oracle and the operator serves it, and its reset's
metadata says so), the client's (the `openenv` env asks only where the server said so, and reads
the answer as untrusted), and the oracle policy, which stops a run whose served env has none.
A real `swift-gym serve` process scoring 1.0: tests/test_serve_remote_env.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

import swift_gym
from swift_gym.registry import default_registry
from swift_gym.serving.catalogue import EnvCatalogue
from swift_gym.serving.protocol import (
    EXECUTION_ERROR,
    SESSION_ERROR,
    VALIDATION_ERROR,
    ProtocolError,
    parse_frame,
)
from swift_gym.serving.sessions import Session, SessionTable

pytest.importorskip("websockets")
from websocket_server import ThreadedServer

from swift_gym.remote.env import OpenEnvEnv
from swift_gym.remote.protocol import MAX_ORACLE_CHARS, NoOracleError
from swift_gym.remote.protocol import ProtocolError as ClientProtocolError


def lake_session(**options: Any) -> Session:
    served = EnvCatalogue(default_registry(), default_env="frozen_lake")
    return Session(served, SessionTable(1), step_timeout=10, **options)


async def test_a_session_answers_the_oracle_of_its_episode_and_says_so_at_reset() -> None:
    session = lake_session()
    with pytest.raises(ProtocolError) as caught:
        await session.handle("oracle", {})
    assert caught.value.code == SESSION_ERROR and "send a reset first" in caught.value.message
    reset = json.loads(await session.handle("reset", {"seed": 3}))["data"]
    assert reset["metadata"]["oracle"] is True
    done = False
    while not done:
        kind, data = parse_frame(json.dumps({"type": "oracle"}), 1 << 20)
        answer = json.loads(await session.handle(kind, data))
        assert answer["type"] == "oracle"
        reply = answer["data"]["reply"]
        assert reply == session.env.oracle_reply()  # type: ignore[union-attr]
        step = json.loads(await session.handle("step", {"message": reply}))["data"]
        assert "oracle" not in step["metadata"]  # said once, at reset
        done = step["done"]
    assert step["reward"] == 1.0
    with pytest.raises(ProtocolError, match="episode is over"):
        await session.handle("oracle", {})
    await session.close()


class _NoOracle(swift_gym.Env):
    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict]:
        return "x", 0.0, False, {}


class _OddOracle(_NoOracle):
    def oracle_reply(self) -> Any:
        return 42


class _Catalogue:
    """Serves one env class as 'odd'."""

    def __init__(self, env: type) -> None:
        self.env, self.registry = env, self

    def env_config(self, data: dict[str, Any]) -> tuple[str, dict[str, Any], None]:
        return "odd", {"name": "odd"}, None

    def get_env_class(self, name: str) -> type:
        return self.env

    def requested_env(self, data: dict[str, Any]) -> str:
        return "odd"


@pytest.mark.parametrize(
    ("env", "oracle", "code", "words"),
    [
        (_NoOracle, True, VALIDATION_ERROR, "env 'odd' has no oracle: _NoOracle does not define"),
        (_OddOracle, False, VALIDATION_ERROR, "serves no oracle replies (swift-gym serve --no-"),
        (_OddOracle, True, EXECUTION_ERROR, "oracle_reply() returned 42, not text or an assis"),
    ],
)
async def test_an_oracle_not_served_is_refused_and_the_reset_says_so_first(
    env: type, oracle: bool, code: str, words: str
) -> None:
    session = Session(_Catalogue(env), SessionTable(1), 10, oracle=oracle)  # type: ignore[arg-type]
    reset = json.loads(await session.handle("reset", {}))["data"]
    assert reset["metadata"]["oracle"] is (env is _OddOracle and oracle)
    with pytest.raises(ProtocolError) as caught:
        await session.handle("oracle", {})
    assert caught.value.code == code and words in caught.value.message
    await session.close()


RESET = {"type": "observation", "data": {"observation": {"text": "start"}, "metadata": {}}}


class OracleServer(ThreadedServer):
    """Answers a reset with `reset` and every other frame with the next of `answers` (raw text,
    sent as is); keeps the frame types it got."""

    def __init__(self, reset: dict[str, Any], answers: list[str]) -> None:
        self.reset, self.answers, self.received = json.dumps(reset), list(answers), []
        self.start()

    async def handle(self, connection: Any) -> None:
        try:
            async for text in connection:
                kind = json.loads(text)["type"]
                self.received.append(kind)
                if kind == "reset":
                    await connection.send(self.reset)
                elif kind != "close" and self.answers:
                    await connection.send(self.answers.pop(0))
        except Exception:  # the client hung up
            pass


@pytest.fixture()
def oracle_server() -> Iterator[Any]:
    servers: list[OracleServer] = []

    def start(*answers: str, oracle: Any = True) -> OracleServer:
        reset = json.loads(json.dumps(RESET))
        if oracle is not None:
            reset["data"]["metadata"] = {"env": "lake\x1b[2J", "oracle": oracle}
        servers.append(OracleServer(reset, list(answers)))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def ask_oracle(server: OracleServer) -> Any:
    env = OpenEnvEnv({"base_url": server.url})

    async def ask() -> Any:
        _, info, _ = await env.reset()
        assert "oracle" not in info  # the server's word on the oracle is not the env's info
        try:
            return await env.oracle_reply_async()
        finally:
            await env.close()

    return asyncio.run(ask())


def oracle(reply: Any) -> str:
    return json.dumps({"type": "oracle", "data": {"reply": reply}})


def test_the_client_asks_the_server_and_reads_text_or_an_assistant_message(
    oracle_server: Any,
) -> None:
    assert ask_oracle(oracle_server(oracle("<action>down</action>"))) == "<action>down</action>"
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    message = {"role": "assistant", "content": "", "tool_calls": [call]}
    assert ask_oracle(oracle_server(oracle(message))) == message


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (oracle(42), r"sent oracle reply 42: it is int, not text or a message"),
        (oracle(None), r"sent oracle reply None: it is NoneType"),
        (oracle({"role": "user", "content": "x"}), r"its role is 'user', not assistant"),
        (oracle({"content": ["a"]}), r"its content is list, not text"),
        (oracle({"content": "", "tool_calls": "f()"}), r"its tool_calls is no list of calls"),
        (oracle("x" * (MAX_ORACLE_CHARS + 1)), r"oracle reply of 100,001 characters: at most"),
        (oracle({"content": "x" * MAX_ORACLE_CHARS}), r"reply of 100,0[0-9][0-9] characters"),
        (json.dumps({"type": "observation", "data": {}}), r"with a frame of type 'observation'"),
        ("not json", r"sent no JSON"),
        ("[" * 200 + "]" * 200, r"sent JSON nested more than"),
    ],
)
def test_a_garbled_or_huge_oracle_answer_is_refused_saying_what_is_wrong(
    oracle_server: Any, answer: str, words: str
) -> None:
    with pytest.raises(ClientProtocolError, match=words) as caught:
        ask_oracle(oracle_server(answer))
    assert len(str(caught.value)) < 400 and str(caught.value).isprintable()


@pytest.mark.parametrize(
    ("said", "words"),
    [
        (False, r"serves no oracle for env 'lake\\x1b\[2J': the served env does not define"),
        (None, r"does not say that it serves oracle replies .* without swift-gym's oracle ext"),
        ("yes", r"does not say that it serves oracle replies"),
    ],
)
def test_where_the_server_serves_no_oracle_the_client_never_asks_and_says_why(
    oracle_server: Any, said: Any, words: str
) -> None:
    server = oracle_server(oracle("<action>down</action>"), oracle=said)
    with pytest.raises(NoOracleError, match=words):
        ask_oracle(server)
    assert "oracle" not in server.received  # an upstream server would answer UNKNOWN_TYPE


def test_eval_with_the_oracle_stops_at_a_served_env_without_one(oracle_server: Any) -> None:
    server = oracle_server(oracle=False)
    env = {"name": "openenv", "base_url": server.url}
    result = swift_gym.evaluate(env, "oracle", episodes=4, concurrency=1)
    assert result.stopped is not None and "serves no oracle for env" in result.stopped
    assert result.statuses == {"not_played": 3, "error": 1}
    assert "has no oracle: the server at ws://127.0.0.1" in result.records[0]["error"]


def test_serve_no_oracle_is_the_operators_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    import swift_gym.serving
    from swift_gym.cli import serve as command
    from swift_gym.cli.app import cli

    served: list[Any] = []
    monkeypatch.setattr(swift_gym.serving, "serve", lambda options, **_: served.append(options))
    monkeypatch.setattr(command, "_log_to_stderr", lambda: None)  # the server's logger as is
    for args, oracle in (([], True), (["--no-oracle"], False)):
        result = CliRunner().invoke(cli, ["serve", "frozen_lake", *args])
        assert result.exit_code == 0, result.output
        assert served.pop().oracle is oracle
