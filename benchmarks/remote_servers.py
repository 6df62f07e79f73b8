"""The remote benchmark's two servers as real processes on 127.0.0.1, and the client both face.

`swift-gym serve frozen_lake` runs from the bench env; openenv's `create_fastapi_app` serving
the same FrozenLake (`openenv_frozen_lake.py`) runs from a separate venv that has openenv
(`BENCH_OPENENV_PYTHON`, which `tox -e bench` builds), never from the bench env itself.

The client is a few lines of raw websockets (the library swift-gym's `openenv` env uses), the
same for both servers. Not openenv's `GenericEnvClient`: it cannot be installed beside ms-swift
(see above), and running the client from openenv's venv would add its pydantic models and
per-step parsing to every measurement, CPU that on a small machine the servers then compete
for. The raw client sends the frames and reads the JSON back, nothing more, so what differs
between two runs is the server.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

HERE = Path(__file__).resolve().parent
READY = re.compile(r"on (http://127\.0\.0\.1:\d+)")
MAX_SESSIONS = 300
"""Above the largest session count measured, so that slots a closing round still holds never
refuse the next round's connections."""


@dataclass
class Server:
    name: str
    process: subprocess.Popen[str]
    url: str

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1) + "/ws"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _environ() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}


def ours_name(isolation: str) -> str:
    """How a form of `swift-gym serve` is named in the results: the default has no flag."""
    return "swift-gym serve" + ("" if isolation == "auto" else f" --isolation {isolation}")


def start_ours(isolation: str = "auto", timeout: float = 60, env: str = "frozen_lake") -> Server:
    """`swift-gym serve ENV` on a free port; returns once its ready line is out."""
    command = [sys.executable, "-m", "swift_gym", "serve", env, "--port", "0"]
    command += ["--max-sessions", str(MAX_SESSIONS)]
    if isolation != "auto":  # the default is run as a user runs it: without the flag
        command += ["--isolation", isolation]
    process = subprocess.Popen(
        command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=_environ()
    )
    found: list[str] = []
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            match = READY.search(line)
            if match and not found:
                found.append(match.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(timeout) or not found:
        process.kill()
        raise RuntimeError(f"swift-gym serve did not start: {''.join(lines)[-2000:]}")
    return Server(ours_name(isolation), process, found[0])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_openenv(python: str, mode: str, timeout: float = 120) -> Server:
    """openenv's server (`mode`: sync or async env) from `python`; returns once /health answers."""
    port = free_port()
    command = [python, str(HERE / "openenv_frozen_lake.py"), "--port", str(port)]
    command += ["--mode", mode, "--max-sessions", str(MAX_SESSIONS)]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_environ()
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"openenv's server exited: {process.stderr.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as answer:
                if answer.status == 200:
                    return Server(f"openenv ({mode} env)", process, url)
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"openenv's server did not answer /health within {timeout:g} s")


async def open_socket(ws_url: str) -> Any:
    return await connect(ws_url, max_size=16 * 2**20, proxy=None)


async def close_socket(sock: Any) -> None:
    try:
        await sock.send('{"type": "close"}')
    finally:
        await sock.close()


def _observation(raw: str | bytes) -> dict[str, Any]:
    frame = json.loads(raw)
    if frame.get("type") != "observation":
        raise RuntimeError(f"the server answered {str(frame)[:300]}")
    return frame["data"]


async def play(sock: Any, seed: int, replies: list[str], times: list[float] | None = None):
    """One episode on an open socket: (steps, reward, crc of the texts). With `times`, each
    step's round trip (send to answer parsed) is appended to it, in seconds."""
    await sock.send(json.dumps({"type": "reset", "data": {"seed": seed}}))
    data = _observation(await sock.recv())
    crc = zlib.crc32(data["observation"]["text"].encode())
    reward, steps = 0.0, 0
    clock = time.perf_counter
    for reply in replies:
        start = clock()
        await sock.send(json.dumps({"type": "step", "data": {"message": reply}}))
        data = _observation(await sock.recv())
        if times is not None:
            times.append(clock() - start)
        crc = zlib.crc32(data["observation"]["text"].encode(), crc)
        reward += data["reward"] or 0.0
        steps += 1
        if data["done"]:
            break
    return steps, reward, crc
