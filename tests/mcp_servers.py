"""Real MCP servers for tests (`mcp_server.py`, the SDK's FastMCP): the settings of a stdio
command the code under test starts, a streamable-HTTP server process on 127.0.0.1, and checks
that no server process outlives what it should (each server writes its pid to `$MCP_TEST_PIDS`).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

SERVER = Path(__file__).with_name("mcp_server.py")
SECRET = "s3cr3t-header-value"
"""The Authorization header the HTTP server's settings hold: it must never be shown."""
ENV_SECRET = "env-s3cr3t-value"
"""A value of a stdio server's `env` in the operator's settings: it must never be shown."""


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def wait_gone(pids: list[int], seconds: float = 20.0) -> list[int]:
    """The pids still alive after waiting up to `seconds` for them to end."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


def pids_in(directory: Path) -> list[int]:
    return [int(path.read_text()) for path in directory.iterdir()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stdio_settings(**more: object) -> dict[str, object]:
    """The operator's settings of a stdio test server (with `$MCP_TEST_PIDS` in its env: a
    server gets only a minimal environment and what the settings give)."""
    env = dict(more.pop("env", {}))  # type: ignore[call-overload]
    if "MCP_TEST_PIDS" in os.environ:
        env.setdefault("MCP_TEST_PIDS", os.environ["MCP_TEST_PIDS"])
    return {"command": [sys.executable, str(SERVER), "stdio"], "env": env, **more}


class HttpServer:
    """A streamable-HTTP MCP server process on 127.0.0.1 (killed at the end of the test)."""

    def __init__(self, pid_dir: Path, tame: bool = False):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), "http", str(self.port)],
            env={**os.environ, "MCP_TEST_PIDS": str(pid_dir), "MCP_TEST_TAME": "1" * tame},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "the HTTP MCP server exited at start"
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the HTTP MCP server did not listen within 60 s")

    def settings(self, **more: object) -> dict[str, object]:
        return {"url": self.url, "headers": {"Authorization": f"Bearer {SECRET}"}, **more}

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
