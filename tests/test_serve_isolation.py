"""`swift-gym serve --isolation shared` and `inline` as real processes: the same error frames
and timeouts as the default (tests/test_serve.py), and what each trades away, as documented in
`swift_gym.placement.runners`."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import serve_process
from test_serve import _connect, ask, error_of, get

websockets_sync = pytest.importorskip("websockets.sync.client")


@pytest.fixture(scope="module", params=["shared", "inline"])
def odd(request: pytest.FixtureRequest) -> Iterator[serve_process.Server]:
    server = serve_process.start_misbehaving(
        step_timeout=1.5, max_sessions=8, isolation=request.param
    )
    yield server
    server.stop()


def reset(ws: Any, env: str) -> dict[str, Any]:
    return ask(ws, {"type": "reset", "data": {"env_config": {"name": env}}})


def step(ws: Any, message: str) -> dict[str, Any]:
    return ask(ws, {"type": "step", "data": {"message": message}})


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
def test_a_misbehaving_env_gets_an_error_frame_and_the_session_goes_on(
    odd: serve_process.Server, env: str, expected: str
) -> None:
    with websockets_sync.connect(odd.ws_url) as ws:
        reset(ws, env)
        code, message = error_of(step(ws, "boom"))
        assert code == "EXECUTION_ERROR" and expected in message
        assert reset(ws, "echo")["type"] == "observation"
        assert step(ws, "still here")["data"]["observation"]["text"] == "still here"
    assert get(odd, "/health") == {"status": "healthy"}


def test_an_env_that_awaits_forever_times_out_and_frees_its_slot(
    odd: serve_process.Server,
) -> None:
    with websockets_sync.connect(odd.ws_url) as ws:
        reset(ws, "hangs")
        code, message = error_of(step(ws, "wait"))
        assert code == "EXECUTION_ERROR" and "did not return within 1.5 s" in message
        assert serve_process.wait_until(lambda: get(odd, "/metadata")["stuck_envs"] == 0)
        assert reset(ws, "echo")["type"] == "observation"
        assert step(ws, "after")["data"]["observation"]["text"] == "after"


def test_the_metadata_says_which_isolation(odd: serve_process.Server) -> None:
    assert get(odd, "/metadata")["isolation"] in ("shared", "inline")


def _step_in_background(ws: Any, message: str) -> tuple[threading.Thread, list[Any]]:
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(step(ws, message)))
    thread.start()
    return thread, answers


def test_what_a_blocking_env_holds(odd: serve_process.Server) -> None:
    """shared: only the sessions on its loop (a new session lands on a free one); inline:
    every session, until it returns (the documented trade-off)."""
    isolation = get(odd, "/metadata")["isolation"]
    slow = _connect(odd.ws_url)
    reset(slow, "blocks_loop")
    thread, answers = _step_in_background(slow, "1")
    time.sleep(0.2)
    started = time.monotonic()  # inline: even the handshake waits for the loop
    with websockets_sync.connect(odd.ws_url) as fast:
        reset(fast, "echo")
        for turn in range(10):
            step(fast, f"turn {turn}")
        took = time.monotonic() - started
    thread.join(10)
    assert answers[0]["data"]["observation"]["text"] == "slept 1.0"
    slow.close()
    if isolation == "shared":
        assert took < 0.7
    else:
        assert took > 0.5  # waited for the sleeping env: the server's loop was its


def test_auto_plays_envs_that_never_block_inline_and_the_rest_on_threads() -> None:
    """The default: an env declaring `never_blocks` is built and played on the server's own
    loop; any other env on a session thread; one connection may switch between them."""
    server = serve_process.start_misbehaving(step_timeout=5, max_sessions=4)
    try:
        assert get(server, "/metadata")["isolation"] == "auto"
        with websockets_sync.connect(server.ws_url) as ws:
            for _ in range(2):  # there and back on one session: its runner changes each time
                inline = reset(ws, "where_am_i_never_blocks")["data"]["observation"]["info"]
                assert inline["built_on"] == inline["reset_on"] == "MainThread"
                assert step(ws, "x")["data"]["observation"]["info"]["step_on"] == "MainThread"
                threaded = reset(ws, "where_am_i")["data"]["observation"]["info"]
                assert threaded["reset_on"].startswith("swift-gym-session-")
                assert threaded["built_on"] == threaded["reset_on"]
                info = step(ws, "x")["data"]["observation"]["info"]
                assert info["step_on"] == threaded["reset_on"]
    finally:
        server.stop()
