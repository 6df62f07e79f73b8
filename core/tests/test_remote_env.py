"""The `openenv` env against a small fake OpenEnv server: a real WebSocket server on 127.0.0.1
in a thread of the test process, speaking the protocol's frames (a counting game). The tests
against `swift-gym serve` itself, in its own process, are in tests/.
"""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("websockets")
from websocket_server import ThreadedServer

from swift_gym.errors import EnvUnavailableError, InvalidConfigError
from swift_gym.remote.env import OpenEnvEnv
from swift_gym.remote.protocol import (
    ProtocolError,
    RemoteEnvError,
    ServerDownError,
    ServerError,
)
from swift_gym.remote.tokens import TOKENS_VARIABLE, TokenSetupError, bearer_headers, parse_tokens


class FakeServer(ThreadedServer):
    """Counting game: the reply must be the next number; three right answers end it."""

    def __init__(self, garbage: bool = False) -> None:
        self.garbage = garbage
        self.frames: list[dict[str, Any]] = []
        self.headers: list[str | None] = []
        self.open = 0
        self.start()

    async def handle(self, connection: Any) -> None:
        self.headers.append(connection.request.headers.get("Authorization"))
        self.open += 1
        count = None
        try:
            async for text in connection:
                frame = json.loads(text)
                self.frames.append(frame)
                if self.garbage:
                    await connection.send("this is not json")
                    continue
                if frame["type"] == "close":
                    break
                if frame["type"] == "reset":
                    count = frame["data"].get("seed") or 0
                    first = self._observation(f"count {count}", 0.0, False, "say the next number")
                    await connection.send(first)
                elif count is None:
                    await connection.send(json.dumps({"type": "error", "data": {
                        "message": "step before reset", "code": "NO_EPISODE"}}))  # fmt: skip
                else:
                    right = frame["data"].get("message") == str(count + 1)
                    count += right
                    done = right and count % 3 == 0
                    await connection.send(self._observation(f"count {count}", float(right), done))
        finally:
            self.open -= 1

    @staticmethod
    def _observation(text: str, reward: float, done: bool, system: str | None = None) -> str:
        observation = {"text": text, "info": {"count": text}}
        if system:
            observation["system_prompt"] = system
        return json.dumps({"type": "observation", "data": {
            "observation": observation, "reward": reward, "done": done,
            "metadata": {"server": "fake", "episode_id": f"fake-{text}"}}})  # fmt: skip


@pytest.fixture()
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    yield fake
    fake.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition: Any, tries: int = 200) -> bool:
    """Whether `condition()` holds within `tries` checks, 0.05 s apart."""
    for _ in range(tries):
        if condition():
            return True
        threading.Event().wait(0.05)
    return bool(condition())


def reply(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


def test_an_episode_plays_to_the_end_and_closes_its_session(server: FakeServer) -> None:
    env = OpenEnvEnv({"base_url": server.url, "seed": 4, "env_config": {"name": "counter"}})

    async def play() -> list[tuple[str, float, bool, dict]]:
        observation, info, system = await env.reset()
        assert (observation, system) == ("count 4", "say the next number")
        assert info == {"server": "fake", "count": "count 4"}  # episode_id kept out of info
        assert env.episode_id == "fake-count 4"
        return [await env.step(reply(text)) for text in ("5", "five", "6")]

    steps = asyncio.run(play())
    assert [step[1:3] for step in steps] == [(1.0, False), (0.0, False), (1.0, True)]
    assert steps[-1][0] == "count 6"
    assert server.frames[0] == {"type": "reset", "data": {"env_config": {"name": "counter"},
                                                          "seed": 4}}  # fmt: skip
    assert server.frames[1] == {"type": "step", "data": {"message": "5"}}
    # done: the slot is given back at once (the server's thread may still be reading the frame)
    assert wait_for(lambda: server.frames[-1] == {"type": "close"})
    with pytest.raises(RemoteEnvError, match="the episode is over"):
        asyncio.run(env.step(reply("7")))


def test_reset_and_steps_on_different_event_loops(server: FakeServer) -> None:
    """ms-swift's colocate mode: on_trajectory_start and the turns run on different loops."""
    env = OpenEnvEnv({"base_url": server.url})
    assert asyncio.run(env.reset())[0] == "count 0"
    assert asyncio.run(env.step(reply("1")))[1] == 1.0
    loop = asyncio.new_event_loop()
    try:
        assert loop.run_until_complete(env.step(reply("2")))[0] == "count 2"
    finally:
        loop.close()
    asyncio.run(env.close())


def test_a_pool_fails_over_at_reset_only(server: FakeServer) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    for _ in range(2):  # whichever member the turn starts with
        env = OpenEnvEnv({"base_url": [dead, server.url], "connect_timeout": 2})
        assert asyncio.run(env.reset())[0] == "count 0"
        asyncio.run(env.close())
    with pytest.raises(ServerDownError, match="no server of the pool answered"):
        asyncio.run(OpenEnvEnv({"base_url": [dead, dead]}).reset())
    with pytest.raises(ServerDownError, match="cannot connect"):
        asyncio.run(OpenEnvEnv({"base_url": dead}).reset())


def test_a_pool_is_down_only_when_no_member_accepts_a_connection() -> None:
    """A member that accepts the connection, even to refuse the handshake, is up: eval goes on
    (its episodes fail); only a pool where nothing accepts one is down."""
    dead = f"http://127.0.0.1:{free_port()}"
    with socket.socket() as refuser:  # accepts, then hangs up: no WebSocket handshake
        refuser.bind(("127.0.0.1", 0))
        refuser.listen(8)
        url = f"http://127.0.0.1:{refuser.getsockname()[1]}"

        def refuse() -> None:
            for _ in range(2):
                connection, _ = refuser.accept()
                connection.close()

        thread = threading.Thread(target=refuse, daemon=True)
        thread.start()
        for _ in range(2):  # whichever member the turn starts with
            with pytest.raises(RemoteEnvError, match="no server of the pool answered") as caught:
                asyncio.run(OpenEnvEnv({"base_url": [dead, url]}).reset())
            assert not isinstance(caught.value, EnvUnavailableError)
        thread.join(10)


def test_a_server_that_dies_ends_only_its_episodes(server: FakeServer) -> None:
    other = FakeServer()
    doomed = OpenEnvEnv({"base_url": other.url})
    alive = OpenEnvEnv({"base_url": server.url})

    async def play() -> None:
        await doomed.reset()
        await alive.reset()
        other.stop()
        with pytest.raises(RemoteEnvError, match=r"connection lost|closed"):
            await doomed.step(reply("1"))
        assert (await alive.step(reply("1")))[1] == 1.0

    asyncio.run(play())


def test_garbage_and_a_step_without_reset_are_clear_errors(server: FakeServer) -> None:
    garbage = FakeServer(garbage=True)
    try:
        with pytest.raises(ProtocolError, match="sent no JSON: 'this is not json'"):
            asyncio.run(OpenEnvEnv({"base_url": garbage.url}).reset())
    finally:
        garbage.stop()
    with pytest.raises(RemoteEnvError, match="reset\\(\\) was not called"):
        asyncio.run(OpenEnvEnv({"base_url": server.url}).step(reply("1")))


def test_a_server_error_frame_carries_its_code(server: FakeServer) -> None:
    from swift_gym.placement import background
    from swift_gym.remote.protocol import step_frame
    from swift_gym.remote.session import Session

    async def raw() -> None:
        session = Session(server.url.replace("http", "ws") + "/ws", {}, 5, 5)
        await session.open()
        try:
            await session.request(step_frame({"message": "1"}))
        finally:
            await session.close()

    with pytest.raises(ServerError, match="NO_EPISODE: step before reset") as caught:
        background.run_sync(raw(), 10)
    assert caught.value.code == "NO_EPISODE"


def test_the_token_the_operator_maps_travels_as_a_bearer_header(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GYM_TOKEN", "s3cret")
    monkeypatch.setenv(TOKENS_VARIABLE, f"127.0.0.1:{server.port}=GYM_TOKEN")
    env = OpenEnvEnv({"base_url": server.url})
    asyncio.run(env.reset())
    asyncio.run(env.close())
    assert server.headers == ["Bearer s3cret"]
    monkeypatch.delenv("GYM_TOKEN")
    with pytest.raises(TokenSetupError, match="to GYM_TOKEN, which is unset or empty"):
        asyncio.run(OpenEnvEnv({"base_url": server.url}).reset())
    assert server.headers == ["Bearer s3cret"]  # nothing more was sent


def test_a_token_mapped_for_one_pool_member_never_goes_to_another(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = FakeServer()
    try:
        monkeypatch.setenv("GYM_TOKEN", "s3cret")
        monkeypatch.setenv(TOKENS_VARIABLE, f"127.0.0.1:{server.port}=GYM_TOKEN")
        for _ in range(4):  # the pool's turns start each episode on another member
            env = OpenEnvEnv({"base_url": [server.url, other.url]})
            asyncio.run(env.reset())
            asyncio.run(env.close())
        assert server.headers == ["Bearer s3cret"] * 2
        assert other.headers == [None] * 2
    finally:
        other.stop()


@pytest.mark.parametrize("secret", ["HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "GYM_TOKEN"])
def test_a_row_that_names_a_secret_is_refused_and_connects_nowhere(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch, secret: str
) -> None:
    monkeypatch.setenv(secret, "canary-value")
    with pytest.raises(InvalidConfigError) as caught:
        OpenEnvEnv({"base_url": server.url, "token_env": secret})
    [problem] = caught.value.problems
    assert problem.field == "token_env"
    assert "cannot choose which secret" in problem.reason
    assert TOKENS_VARIABLE in problem.reason
    assert server.headers == []  # no connection at all


def test_a_pool_with_a_member_a_token_cannot_go_to_fails_whichever_member_comes_first(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GYM_TOKEN", "s3cret")
    monkeypatch.setenv(TOKENS_VARIABLE, "gpu-box.invalid=GYM_TOKEN")
    pool = [server.url, "http://gpu-box.invalid:8000"]
    for _ in range(2):  # the pool's turns start each reset on another member
        with pytest.raises(TokenSetupError, match="clear text"):
            asyncio.run(OpenEnvEnv({"base_url": pool}).reset())
    assert server.headers == []  # no member was connected to


def test_a_token_in_clear_text_goes_to_loopback_only_unless_the_operator_opts_in() -> None:
    environ = {TOKENS_VARIABLE: "gpu-box:8000=GYM_TOKEN, 127.0.0.1=LOCAL", "GYM_TOKEN": "t",
               "LOCAL": "l"}  # fmt: skip
    with pytest.raises(TokenSetupError, match=r"clear text.*SWIFT_GYM_OPENENV_INSECURE_TOKENS=1"):
        bearer_headers("ws://gpu-box:8000/ws", environ)
    assert bearer_headers("wss://gpu-box:8000/ws", environ) == {"Authorization": "Bearer t"}
    opted_in = {**environ, "SWIFT_GYM_OPENENV_INSECURE_TOKENS": "1"}
    assert bearer_headers("ws://gpu-box:8000/ws", opted_in) == {"Authorization": "Bearer t"}
    assert bearer_headers("ws://127.0.0.1:9/ws", environ) == {"Authorization": "Bearer l"}
    assert bearer_headers("ws://gpu-box:8001/ws", environ) == {}  # another port: not named
    assert bearer_headers("ws://gpu-box.evil:8000/ws", environ) == {}
    assert bearer_headers("ws://GPU-BOX:8000/ws", opted_in) == {"Authorization": "Bearer t"}


def test_a_token_a_header_cannot_carry_is_refused_without_showing_it() -> None:
    environ = {TOKENS_VARIABLE: "127.0.0.1=GYM_TOKEN", "GYM_TOKEN": "s3cret\r\nX-Evil: 1"}
    with pytest.raises(TokenSetupError, match="GYM_TOKEN holds characters") as caught:
        bearer_headers("ws://127.0.0.1:9/ws", environ)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    ("mapping", "expected"),
    [
        ("", {}),
        ("gpu-box=A", {("gpu-box", None): "A"}),
        (" gpu-box:8000 = A ,, [::1]:9=B", {("gpu-box", 8000): "A", ("::1", 9): "B"}),
        ("Host.Example=A", {("host.example", None): "A"}),
    ],
)
def test_the_token_mapping_reads_hosts_and_ports(mapping: str, expected: dict) -> None:
    assert parse_tokens(mapping) == expected


@pytest.mark.parametrize(
    "mapping",
    ["gpu-box", "gpu-box=", "=A", "gpu-box=A B", "gpu-box:http=A", "gpu-box:70000=A",
     "user@gpu-box=A", "gpu-box/x=A", "a=A,a=B", "gpu-box=$(rm -rf)", "gpu box=A",
     "gpu-box\x1b[2J=A"],
)  # fmt: skip
def test_a_bad_token_mapping_is_a_clear_error(mapping: str) -> None:
    with pytest.raises(TokenSetupError, match=TOKENS_VARIABLE):
        parse_tokens(mapping)


def test_a_forgotten_env_gives_its_slot_back(server: FakeServer) -> None:
    env = OpenEnvEnv({"base_url": server.url})
    asyncio.run(env.reset())
    assert server.open == 1
    del env
    gc.collect()
    for _ in range(100):
        if server.open == 0:
            break
        threading.Event().wait(0.05)
    assert server.open == 0


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({}, "base_url"),
        ({"base_url": "ftp://x"}, "base_url"),
        ({"base_url": []}, "base_url"),
        ({"base_url": "http://x", "step_timeout": 0}, "step_timeout"),
        ({"base_url": "http://x", "token_env": "A B"}, "token_env"),
        ({"base_url": "http://x", "token_env": "HF_TOKEN"}, "token_env"),
        ({"base_url": "http://x:99999"}, "base_url"),
        ({"base_url": "http://x", "urls": 1}, "urls"),
        ({"base_url": "http://x", "env_config": {"map": "F" * 200_000}}, "env_config"),
        ({"base_url": "http://x", "reset_kwargs": {"x": {1, 2}}}, "reset_kwargs"),
    ],
)
def test_bad_configs_name_their_field(config: dict, field: str) -> None:
    with pytest.raises(InvalidConfigError) as caught:
        OpenEnvEnv(config)
    assert field in [problem.field.split(".")[0] for problem in caught.value.problems]
