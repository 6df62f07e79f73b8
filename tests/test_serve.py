"""`swift-gym serve` as real processes on 127.0.0.1, spoken to with a plain WebSocket client:
bad frames, misbehaving envs, clients that vanish, and the command's own errors.

The openenv clients themselves are driven in tests/openenv (tox envs `openenv`, `openenv03`).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import serve_process

websockets_sync = pytest.importorskip("websockets.sync.client")


def _connect(url: str) -> Any:
    """A connection used outside a `with` block (websockets 15+ wants `legacy=True` for it)."""
    try:
        return websockets_sync.connect(url, legacy=True)
    except TypeError:
        return websockets_sync.connect(url)


def ask(ws: Any, frame: Any) -> dict[str, Any]:
    ws.send(frame if isinstance(frame, (str, bytes)) else json.dumps(frame))
    return json.loads(ws.recv(timeout=30))


def error_of(answer: dict[str, Any]) -> tuple[str, str]:
    assert answer["type"] == "error", answer
    return answer["data"]["code"], answer["data"]["message"]


@pytest.fixture(scope="module")
def lake() -> Iterator[serve_process.Server]:
    server = serve_process.start("frozen_lake", "--max-message-bytes", "4096")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def odd() -> Iterator[serve_process.Server]:
    server = serve_process.start_misbehaving(step_timeout=1.5, max_sessions=8)
    yield server
    server.stop()


def get(server: serve_process.Server, path: str) -> dict[str, Any]:
    with urllib.request.urlopen(server.url + path, timeout=10) as response:
        return json.loads(response.read())


def test_garbage_frames_get_error_frames_and_the_session_goes_on(
    lake: serve_process.Server,
) -> None:
    with websockets_sync.connect(lake.ws_url) as ws:
        assert error_of(ask(ws, "not json"))[0] == "INVALID_JSON"
        assert "JSON object" in error_of(ask(ws, "[1, 2]"))[1]
        code, message = error_of(ask(ws, {"type": "jump"}))
        assert code == "UNKNOWN_TYPE" and "reset, step, state, close" in message
        assert error_of(ask(ws, {"type": "step", "data": 5}))[0] == "VALIDATION_ERROR"
        code, message = error_of(ask(ws, "[" * 1500 + "]" * 1500))
        assert code == "INVALID_JSON" and "nested more than 100 levels" in message
        code, message = error_of(
            ask(ws, json.dumps({"type": "step", "data": {"message": "x" * 5000}}))
        )
        assert "over this server's limit of 4096" in message
        assert error_of(ask(ws, b"\xff\xfe{"))[0] == "INVALID_JSON"  # binary, not UTF-8
        code, message = error_of(ask(ws, {"type": "reset", "data": {"seeed": 1}}))
        assert "unknown reset field 'seeed'" in message
        assert ask(ws, {"type": "reset", "data": {"seed": 1}})["type"] == "observation"
        assert ask(ws, {"type": "state"})["data"]["phase"] == "playing"


def test_a_frame_over_the_hard_limit_closes_only_that_connection(
    lake: serve_process.Server,
) -> None:
    with websockets_sync.connect(lake.ws_url, max_size=None) as ws:
        ws.send("x" * 100_000)
        with pytest.raises(Exception):  # noqa: B017 - closed by the server (1009)
            ws.recv(timeout=10)
    assert get(lake, "/health") == {"status": "healthy"}


def test_schema_and_metadata(lake: serve_process.Server) -> None:
    schema = get(lake, "/schema")
    assert schema["action"]["required"] == ["message"]
    assert "size" in schema["reset"]["properties"]["env_config"]["properties"]
    assert get(lake, "/metadata")["default_env"] == "frozen_lake"


def test_replies_history_and_lone_surrogates(odd: serve_process.Server) -> None:
    with websockets_sync.connect(odd.ws_url) as ws:
        reset = ask(ws, {"type": "reset", "data": {"env_config": {"name": "echo"}, "seed": 9}})
        assert reset["data"]["observation"]["system_prompt"] == "echo"
        assert reset["data"]["observation"]["info"] == {"seed": 9}
        first = ask(ws, {"type": "step", "data": {"message": "hi", "metadata": {}}})
        assert first["data"]["observation"]["info"] == {"messages": 3, "reply": "hi"}
        # ms-swift sends a reply that is a JSON object as the object: played as its JSON text
        second = ask(ws, {"type": "step", "data": {"message": 5}})
        assert second["data"]["observation"]["text"] == '{"message": 5}'
        assert second["data"]["observation"]["info"]["messages"] == 5
        ws.send('{"type": "step", "data": {"message": "a\\ud800b"}}')
        raw = ws.recv(timeout=10)
        assert "\\ud800" in raw and json.loads(raw)["data"]["observation"]["text"] == "a\ud800b"
        done = ask(ws, {"type": "step", "data": {"message": "bye"}})
        assert done["data"]["done"] is True
        assert "episode is over" in error_of(ask(ws, {"type": "step", "data": {"message": "x"}}))[1]


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ("raises", "step() raised 'RuntimeError: the env broke on boom"),
        ("exits", "SystemExit: it called sys.exit(3)"),
        (
            "wrong_shape",
            "step() must return (observation, reward, done, info) or a StepResult, "
            "got ('only', 'three', 'things')",
        ),
        ("cancels", "CancelledError, raised by the env itself"),
    ],
)
def test_an_env_that_misbehaves_gets_an_error_frame(
    odd: serve_process.Server, env: str, expected: str
) -> None:
    with websockets_sync.connect(odd.ws_url) as ws:
        ask(ws, {"type": "reset", "data": {"env_config": {"name": env}}})
        code, message = error_of(ask(ws, {"type": "step", "data": {"message": "boom"}}))
        assert code == "EXECUTION_ERROR" and expected in message
        assert "send a reset" in error_of(ask(ws, {"type": "step", "data": {"message": "x"}}))[1]
        assert ask(ws, {"type": "reset", "data": {"env_config": {"name": "echo"}}})["type"] == (
            "observation"
        )


def test_an_info_that_cannot_be_written_is_answered_with_the_step(
    odd: serve_process.Server,
) -> None:
    with websockets_sync.connect(odd.ws_url) as ws:
        ask(ws, {"type": "reset", "data": {"env_config": {"name": "bad_info"}}})
        answer = ask(ws, {"type": "step", "data": {"message": "go"}})
        assert answer["type"] == "observation", answer
        info = answer["data"]["observation"]["info"]
        assert info == {"odd": "<unprintable Unprintable>", "fine": 1}
        assert ask(ws, {"type": "state"})["data"]["step_count"] == 1  # client and server agree


@pytest.mark.parametrize("env", ["slow_close", "slow_close_blocking"])
def test_a_slow_close_does_not_fail_the_last_step(odd: serve_process.Server, env: str) -> None:
    """close() takes 2.5 s, the step timeout is 1.5 s: the step is answered, then closed."""
    with websockets_sync.connect(odd.ws_url) as ws:
        ask(ws, {"type": "reset", "data": {"env_config": {"name": env}}})
        answer = ask(ws, {"type": "step", "data": {"message": "end"}})
        assert answer["type"] == "observation", answer
        assert answer["data"]["done"] is True and answer["data"]["observation"]["text"] == "the end"
        assert ask(ws, {"type": "reset", "data": {"env_config": {"name": "echo"}}})["type"] == (
            "observation"
        )


def test_a_blocking_env_blocks_no_other_session(odd: serve_process.Server) -> None:
    """One env sleeps 1 s inside its coroutine; another session plays 20 steps meanwhile."""
    slow = _connect(odd.ws_url)
    ask(slow, {"type": "reset", "data": {"env_config": {"name": "blocks_loop"}}})
    answers: list[dict[str, Any]] = []
    blocked = threading.Thread(
        target=lambda: answers.append(ask(slow, {"type": "step", "data": {"message": "1"}}))
    )
    blocked.start()
    time.sleep(0.2)
    with websockets_sync.connect(odd.ws_url) as fast:
        started = time.monotonic()
        ask(fast, {"type": "reset", "data": {"env_config": {"name": "echo"}}})
        for turn in range(20):
            ask(fast, {"type": "step", "data": {"message": f"turn {turn}"}})
        assert time.monotonic() - started < 0.7
        assert answers == []  # the slow step is still sleeping
    blocked.join(10)
    assert answers[0]["data"]["observation"]["text"] == "slept 1.0"
    slow.close()


def test_a_hung_env_times_out_and_holds_its_slot_until_it_returns(
    odd: serve_process.Server,
) -> None:
    with websockets_sync.connect(odd.ws_url) as ws:
        ask(ws, {"type": "reset", "data": {"env_config": {"name": "hangs"}}})
        code, message = error_of(ask(ws, {"type": "step", "data": {"message": "block"}}))
        assert code == "EXECUTION_ERROR" and "did not return within 1.5 s" in message
        assert ask(ws, {"type": "reset", "data": {"env_config": {"name": "echo"}}})["type"] == (
            "observation"
        )
        assert get(odd, "/metadata")["stuck_envs"] >= 1
        # an env that awaits forever is cancelled, and frees its worker at once
        ask(ws, {"type": "reset", "data": {"env_config": {"name": "hangs"}}})
        assert error_of(ask(ws, {"type": "step", "data": {"message": "wait"}}))[0] == (
            "EXECUTION_ERROR"
        )


def _threads(process: Any) -> int:
    return len(os.listdir(f"/proc/{process.pid}/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
@pytest.mark.parametrize("isolation", ["thread", "shared"])
def test_hung_resets_on_one_connection_leave_at_most_max_sessions_workers(isolation: str) -> None:
    server = serve_process.start_misbehaving(step_timeout=0.3, max_sessions=4, isolation=isolation)
    try:
        before = _threads(server.process)
        refused: list[str] = []
        with websockets_sync.connect(server.ws_url) as ws:
            for _ in range(8):
                answer = ask(ws, {"type": "reset", "data": {"env_config": {"name": "hangs"}}})
                if answer["type"] == "error":
                    refused.append(error_of(answer)[1])
                    continue
                code, message = error_of(ask(ws, {"type": "step", "data": {"message": "block"}}))
                assert code == "EXECUTION_ERROR" and "did not return within 0.3 s" in message
            assert _threads(server.process) - before <= 4
            metadata = get(server, "/metadata")
            assert metadata["stuck_envs"] <= 4, metadata
        assert refused, "a reset that needs a worker the server cannot give is refused"
        assert "no worker to spare: 1 sessions open and 4 envs stuck" in refused[0]
        assert "of 4 (swift-gym serve --max-sessions)" in refused[0]
        assert _threads(server.process) - before <= 4
    finally:
        server.stop()


def test_a_client_that_vanishes_mid_step_leaves_the_server_serving(
    odd: serve_process.Server,
) -> None:
    before = get(odd, "/metadata")["sessions"]
    ws = _connect(odd.ws_url)
    ask(ws, {"type": "reset", "data": {"env_config": {"name": "blocks_loop"}}})
    ws.send(json.dumps({"type": "step", "data": {"message": "0.5"}}))
    ws.socket.shutdown(socket.SHUT_RDWR)
    ws.socket.close()
    assert serve_process.wait_until(lambda: get(odd, "/metadata")["sessions"] == before)
    with websockets_sync.connect(odd.ws_url) as again:
        assert ask(again, {"type": "reset", "data": {"env_config": {"name": "echo"}}})["type"] == (
            "observation"
        )


OPENENV_RESET = {
    "type": "reset",
    "data": {"env_config": {"name": "openenv", "base_url": "http://127.0.0.1:9"}},
}


def test_serve_name_serves_only_name_and_refuses_a_clients_openenv_reset(
    lake: serve_process.Server,
) -> None:
    with websockets_sync.connect(lake.ws_url) as ws:
        code, message = error_of(ask(ws, OPENENV_RESET))
        assert code == "VALIDATION_ERROR"
        assert "env 'openenv' is not served here; this server plays frozen_lake" in message
        other = {"type": "reset", "data": {"env_config": {"name": "frozen_lake_ms_swift"}}}
        assert "not served here" in error_of(ask(ws, other))[1]
        assert ask(ws, {"type": "reset", "data": {"seed": 1}})["type"] == "observation"
    assert get(lake, "/metadata")["envs"] == ["frozen_lake"]


def test_without_name_or_allow_no_env_that_reaches_the_network_is_served(
    odd: serve_process.Server,
) -> None:
    with websockets_sync.connect(odd.ws_url) as ws:
        for name in ("openenv", "fetches"):
            reset = {"type": "reset", "data": {"env_config": {"name": name}}}
            code, message = error_of(ask(ws, reset))
            assert code == "VALIDATION_ERROR", message
            assert f"env '{name}' is not served here: it reaches the network" in message
            assert f"swift-gym serve --allow {name}" in message
        # an unknown name is answered without listing what is installed
        unknown = {"type": "reset", "data": {"env_config": {"name": "frozen_lak"}}}
        code, message = error_of(ask(ws, unknown))
        assert code == "VALIDATION_ERROR" and "env 'frozen_lak' is not served here" in message
        assert "frozen_lake" not in message.replace("frozen_lak'", "") and "echo" not in message
        assert ask(ws, {"type": "reset", "data": {"env_config": {"name": "echo"}}})["type"] == (
            "observation"
        )


def test_an_env_that_reaches_the_network_is_served_when_allow_names_it(
    lake: serve_process.Server,
) -> None:
    server = serve_process.start("frozen_lake", "--allow", "openenv")
    try:
        with websockets_sync.connect(server.ws_url) as ws:
            reset = {"type": "reset", "data": {"env_config": {"name": "openenv",
                     "base_url": lake.url, "env_config": {"seed": 3}}}}  # fmt: skip
            answer = ask(ws, reset)
            assert answer["type"] == "observation", answer
            assert "You are playing FrozenLake" in answer["data"]["observation"]["system_prompt"]
    finally:
        server.stop()


def test_a_bad_token_is_refused_before_any_env(tmp_path: Any) -> None:
    server = serve_process.start("frozen_lake", "--token-env", "T", env={"T": "abc123"})
    try:
        with pytest.raises(Exception, match="401"):
            websockets_sync.connect(server.ws_url)
        with pytest.raises(Exception, match="401"):
            websockets_sync.connect(server.ws_url, additional_headers={"Authorization": "Bearer x"})
        auth = {"Authorization": "Bearer abc123"}
        with websockets_sync.connect(server.ws_url, additional_headers=auth) as ws:
            assert ask(ws, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
        assert get(server, "/health") == {"status": "healthy"}  # for load balancers
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("no_such_env",), "unknown env 'no_such_env'"),
        (("frozen_lake", "--set", "size=big"), "size: Input should be a valid integer"),
        (("--set", "size=5"), "--set sets fields of the default env: give NAME too"),
        (("frozen_lake", "--token-env", "SWIFT_GYM_TEST_UNSET"), "the variable is unset or empty"),
        (("frozen_lake", "--allow", "nope"), "unknown env 'nope'"),
        (("frozen_lake", "--isolation", "process"), "'process' is not one of 'auto', 'thread'"),
        (("openenv",), "env 'openenv': it reaches the network"),
        (("openenv",), "swift-gym serve openenv --allow openenv"),
        (("mcp_tools",), "env 'mcp_tools': it starts the operator's processes"),
        (("mcp_tools",), "swift-gym serve mcp_tools --allow mcp_tools"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], expected: str) -> None:
    result = serve_process.run_command(*args)
    assert result.returncode == 2, result.stderr
    assert expected in result.stderr


def test_a_port_in_use_is_a_usage_error(lake: serve_process.Server) -> None:
    result = serve_process.run_command("frozen_lake", "--port", str(lake.port))
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{lake.port}" in result.stderr


def test_sigterm_stops_the_server_with_143() -> None:
    server = serve_process.start("frozen_lake")
    ws = _connect(server.ws_url)
    ask(ws, {"type": "reset", "data": {"seed": 0}})
    assert server.stop(signal.SIGTERM) == 143
    ws.close()


def test_sessions_opened_and_closed_are_logged() -> None:
    server = serve_process.start("frozen_lake")
    try:
        with websockets_sync.connect(server.ws_url) as ws:
            ask(ws, {"type": "reset", "data": {"seed": 0}})
            ask(ws, {"type": "step", "data": {"message": "<action>down</action>"}})
            ask(ws, {"type": "reset", "data": {"seed": 1}})
        assert serve_process.wait_until(lambda: " closed after " in server.stderr())
        log = server.stderr()
        opened = re.search(r"session ([0-9a-f]{8}) opened from 127\.0\.0\.1:\d+ \(1 of 256", log)
        assert opened, log
        assert f"session {opened.group(1)} closed after 2 episodes, 1 steps" in log
    finally:
        server.stop()


def test_serve_does_not_default_to_evals_port() -> None:
    from urllib.parse import urlsplit

    from swift_gym.evaluation.defaults import BASE_URL
    from swift_gym.serving import ServeOptions

    eval_port = urlsplit(BASE_URL).port
    assert ServeOptions().port != eval_port
    helped = serve_process.run_command("--help")
    assert f"[default: {ServeOptions().port};" in helped.stdout
