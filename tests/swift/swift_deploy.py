"""A real `swift deploy` (transformers backend, CPU) on 127.0.0.1 for the tests: started in its
own process group, waited for until `/v1/models` answers, and stopped with its whole group."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

START_TIMEOUT = 300
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def environ() -> dict[str, str]:
    """Offline, no proxy for 127.0.0.1, no SWIFT_GYM_* or API key from the caller."""
    env = {
        k: v
        for k, v in os.environ.items()
        if "proxy" not in k.lower() and not k.startswith("SWIFT_GYM_") and k != "OPENAI_API_KEY"
    }
    return {**env, "NO_PROXY": "127.0.0.1", "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}


def stop(process: subprocess.Popen[bytes]) -> None:
    """End the server's whole process group, even if it already exited."""
    for sig, wait in ((signal.SIGTERM, 60), (signal.SIGKILL, 30)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def deployed(model: Path, log_path: Path, *args: str) -> Iterator[str]:
    """`swift deploy` of `model` (the tests' tiny Qwen2, template qwen2_5) with `args` added;
    yields its base URL (up to /v1) once it answers, and stops it on the way out. Its output
    goes to `log_path`, whose tail a failed start shows."""
    port = free_port()
    command = [
        str(BIN / "swift"), "deploy",
        "--model", str(model), "--model_type", "qwen2", "--template", "qwen2_5",
        "--infer_backend", "transformers", *args,
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=environ(), start_new_session=True
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"swift deploy exited early:\n{log_path.read_text()[-5000:]}")
            with (
                contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError),
                urllib.request.urlopen(f"{url}/models", timeout=5) as response,
            ):
                if response.status == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"no {url}/models after {START_TIMEOUT}s:\n{log_path.read_text()}")
            time.sleep(2)
        yield url
    finally:
        stop(process)
