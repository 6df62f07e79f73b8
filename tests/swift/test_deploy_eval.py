"""`swift-gym eval --policy openai` against a real `swift deploy` (transformers backend, CPU).

The tiny random model never ends a reply by itself, so every reply runs to the request's token
cap: the case where `eval` without `--max-tokens` used to let the server generate up to its
whole context, time out and then overflow it. With eval's default settings, 20 episodes of 10
turns must all complete (the model plays badly; that is no failure). `swift deploy` serves one
request at a time unless `--max_batch_size` says otherwise; given eval's default concurrency of
32 it gets `--max_batch_size 32`, as docs/cli.md advises.
"""

from __future__ import annotations

import contextlib
import json
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
from tiny_model import build_tiny_model

START_TIMEOUT = 300
EVAL_TIMEOUT = 1800
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


@pytest.fixture(scope="module")
def deploy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A `swift deploy` of the tiny model on 127.0.0.1; yields its base URL (up to /v1)."""
    root = tmp_path_factory.mktemp("deploy")
    model = build_tiny_model(root / "model")
    port = free_port()
    command = [
        str(BIN / "swift"), "deploy",
        "--model", str(model), "--model_type", "qwen2", "--template", "qwen2_5",
        "--infer_backend", "transformers", "--max_batch_size", "32",
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    log_path = root / "deploy.log"
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


def test_eval_with_default_settings_completes_every_episode(deploy: str, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    command = [str(BIN / "swift-gym"), "eval", "frozen_lake", "--policy", "openai",
               "--base-url", deploy, "-n", "20", "-o", str(out), "--json"]  # fmt: skip
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=EVAL_TIMEOUT, env=environ()
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert summary["failed_episodes"] == 0, summary["errors"]
    assert summary["episodes"] == 20 and summary["not_played"] == 0
    assert summary["max_tokens"] == 256
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["index"] for r in records] == list(range(20))
    assert all(r["error"] is None and r["num_turns"] >= 1 for r in records)
