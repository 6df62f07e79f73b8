"""`swift-gym serve` against connections that misbehave below the WebSocket layer, as real
processes on 127.0.0.1: sockets that never finish their handshake, a descriptor limit too small
for them."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time

import pytest
import serve_process
from test_serve import ask

websockets_sync = pytest.importorskip("websockets.sync.client")


@pytest.mark.skipif(sys.platform == "win32", reason="descriptor limits are POSIX")
def test_300_silent_sockets_do_not_lock_out_a_client_under_a_256_descriptor_limit() -> None:
    server = serve_process.start("frozen_lake", "--max-sessions", "4", max_files=256)
    silent: list[socket.socket] = []
    try:
        with contextlib.ExitStack() as stack:
            for _ in range(300):
                sock = stack.enter_context(socket.create_connection(("127.0.0.1", server.port)))
                silent.append(sock)
            with websockets_sync.connect(server.ws_url, open_timeout=10) as ws:
                first = ask(ws, {"type": "reset", "data": {"seed": 0}})
                assert first["type"] == "observation"
                step = ask(ws, {"type": "step", "data": {"message": "<action>down</action>"}})
                assert step["type"] == "observation", step
                assert step["data"]["observation"]["text"]
        assert len(server.stderr()) < 20_000, server.stderr()[-2000:]
    finally:
        server.stop()


def test_a_socket_silent_past_the_handshake_timeout_is_closed() -> None:
    server = serve_process.start("frozen_lake", "--handshake-timeout", "0.5")
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as silent:
            silent.settimeout(10)
            assert silent.recv(1) == b""  # closed by the server
        with socket.create_connection(("127.0.0.1", server.port)) as slow:  # headers, no end
            slow.settimeout(10)
            slow.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            assert slow.recv(1) == b""
        with websockets_sync.connect(server.ws_url) as ws:  # a WebSocket has no such deadline
            time.sleep(1.0)
            assert ask(ws, {"type": "reset", "data": {"seed": 0}})["type"] == "observation"
    finally:
        server.stop()


@pytest.mark.skipif(sys.platform == "win32", reason="descriptor limits are POSIX")
def test_the_soft_descriptor_limit_is_raised_to_the_hard_one() -> None:
    script = (
        "import resource; from swift_gym.serving.connections import raise_file_limit; "
        "print(raise_file_limit(), resource.getrlimit(resource.RLIMIT_NOFILE)[0])"
    )

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 256))

    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, preexec_fn=limit, timeout=30
    )
    assert done.stdout.split() == ["256", "256"], done.stderr


def test_a_frame_sent_during_a_long_step_does_not_get_the_client_cut_by_the_keepalive() -> None:
    """The step takes 3 s, pings go every 0.5 s: the frame sent meanwhile waits its turn, and
    the pongs are still read."""
    server = serve_process.start_misbehaving(keepalive=0.5, step_timeout=10)
    try:
        with websockets_sync.connect(server.ws_url) as ws:
            ask(ws, {"type": "reset", "data": {"env_config": {"name": "blocks_loop"}}})
            ws.send(json.dumps({"type": "step", "data": {"message": "3"}}))
            time.sleep(0.2)
            ws.send(json.dumps({"type": "state"}))
            step = json.loads(ws.recv(timeout=30))
            assert step["type"] == "observation", step
            assert step["data"]["observation"]["text"] == "slept 3.0"
            state = json.loads(ws.recv(timeout=30))
            assert state["type"] == "state" and state["data"]["step_count"] == 1
    finally:
        server.stop()
