"""Real `swift-gym serve` processes on 127.0.0.1 for the tests, and a launcher that serves the
misbehaving test envs (`misbehaving_envs`) beside the installed ones, through the library."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
READY = re.compile(r"on (http://127\.0\.0\.1:(\d+))")
LAUNCHER = """
import json, sys
from swift_gym.plugins import load_plugins
from swift_gym.registry import Registry
from swift_gym.serving import ServeOptions, serve
import misbehaving_envs

loaded = load_plugins()
loaded.manager.register(misbehaving_envs, name="tests-misbehaving")
options = ServeOptions(**json.loads(sys.argv[1]))
serve(options, Registry(loaded=loaded), on_ready=lambda url: print("on", url, file=sys.stderr,
      flush=True))
"""


@dataclass
class Server:
    """A server process; `url` is its http:// base URL."""

    process: subprocess.Popen[str]
    url: str
    port: int
    lines: list[str] = field(default_factory=list)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout)

    def stderr(self) -> str:
        return "".join(self.lines)


def _environ() -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    environ["PYTHONPATH"] = str(HERE)
    return environ


def _wait_ready(process: subprocess.Popen[str], timeout: float) -> Server:
    lines: list[str] = []
    found: list[re.Match[str]] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            match = READY.search(line)
            if match and not found:
                found.append(match)
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(timeout) or not found:
        process.kill()
        process.wait()
        raise AssertionError(f"server did not start: {''.join(lines)}")
    return Server(process, found[0].group(1), int(found[0].group(2)), lines)


def start(
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 30,
    max_files: int | None = None,
) -> Server:
    """`swift-gym serve ARGS` (on a free port unless ARGS say one), once it is ready;
    `max_files`: its descriptor limit, soft and hard (so the server cannot raise it)."""
    if "--port" not in args:
        args = (*args, "--port", "0")
    command = [str(Path(sys.executable).parent / "swift-gym"), "serve", *args]
    environ = {**_environ(), **(env or {})}
    process = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=environ,
        preexec_fn=None if max_files is None else (lambda: _limit_files(max_files)),
    )
    return _wait_ready(process, timeout)


def _limit_files(count: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (count, count))


def start_misbehaving(timeout: float = 30, **options: object) -> Server:
    """The library's `serve` with the misbehaving envs registered, on a free port."""
    import json

    options.setdefault("port", 0)
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, json.dumps(options)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=_environ(),
    )
    return _wait_ready(process, timeout)


def run_command(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """`swift-gym serve ARGS` expected to stop by itself (a usage error)."""
    command = [str(Path(sys.executable).parent / "swift-gym"), "serve", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=_environ())


def wait_until(condition, timeout: float = 10.0, every: float = 0.05) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return condition()
