"""`swift-gym eval --policy openai` against servers that stall, die mid-run, restart, or are not
there at all: each a real process on 127.0.0.1 (`openai_server.py`), killed and started again by
the test. Assertions are on behaviour (exit codes, messages, rows of -o, the requests the server
saw and how many it had in flight), never on durations.
"""

from __future__ import annotations

import json
import os
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cli_runner import SCRIPT
from cli_runner import run as run_command

SERVER = Path(__file__).with_name("openai_server.py")
DOWN_WINDOW = 3  # swift_gym.evaluation.openai.DOWN_WINDOW: failed requests in a row = down
WAIT = 120  # seconds a test waits for a process before calling it hung


def environ() -> dict[str, str]:
    """The caller's environment without proxies, API keys or SWIFT_GYM_* settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if "proxy" not in k.lower() and not k.startswith("SWIFT_GYM_") and k != "OPENAI_API_KEY"
    }
    return {**env, "NO_PROXY": "127.0.0.1", "NO_COLOR": "1", "COLUMNS": "200"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    proxies = [k for k in os.environ if "proxy" in k.lower()]
    return run_command(*args, env={"NO_PROXY": "127.0.0.1"}, drop=[*proxies, "OPENAI_API_KEY"])


@dataclass
class Server:
    """One process of the scripted server; `log` outlives it and collects every process's."""

    process: subprocess.Popen[str]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def events(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def requests(self) -> list[dict[str, Any]]:
        return [event for event in self.events() if event["event"] == "begin"]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(WAIT)
        if self.process.stdout:
            self.process.stdout.close()


def start_server(log: Path, *args: str, port: int = 0) -> Server:
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", str(port), "--log", str(log), *args],
        stdout=subprocess.PIPE,
        text=True,
        env=environ(),
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], WAIT)
    assert ready, "the test server did not start"
    line = process.stdout.readline()
    assert line.startswith("listening "), line
    return Server(process, int(line.split()[1]), log)


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    """Servers started by a test, all killed at its end."""
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def free_port() -> int:
    """A port nothing listens on (bound once, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def eval_process(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(SCRIPT), "eval", "frozen_lake", "--policy", "openai", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ(),
    )


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_timed_out_request_is_retried_once_and_concurrency_bounds_retries(
    servers: list[Server], tmp_path: Path
) -> None:
    server = start_server(tmp_path / "log.jsonl", "--answer", "stall")
    servers.append(server)
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "6", "--concurrency", "2", "--timeout", "0.5", "--retries", "4", "--json",
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    summary = json.loads(result.stdout)
    assert summary["statuses"] == {"error": 6}
    assert summary["errors"] == {
        "policy openai: no answer within 0.5 s; gave up after 2 attempts": 6
    }
    requests = server.requests()
    assert len(requests) == 12  # each of the 6 first requests, and its one retry
    # --concurrency 2, retries included: a slot frees only when its request times out (0.5 s),
    # so any 3 requests span most of that. (The server's own `active` count cannot say: it sees
    # a hang-up up to a poll later than the client's retry, longer on a loaded machine.)
    begins = sorted(event["time"] for event in requests)
    assert min(b - a for a, b in zip(begins[:-2], begins[2:], strict=True)) > 0.4, begins


def test_a_server_restart_is_ridden_out(servers: list[Server], tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    first = start_server(log, "--die-after", "6")
    servers.append(first)
    out = tmp_path / "t.jsonl"
    evaluation = eval_process(
        "--base-url", first.url, "--model", "m", "-n", "10", "--concurrency", "2", "-o", str(out),
        "--json",
    )  # fmt: skip
    try:
        first.process.wait(WAIT)  # it dies on its 7th request
        time.sleep(2)  # the server is down a while
        servers.append(start_server(log, port=first.port))
        stdout, stderr = evaluation.communicate(timeout=WAIT)
    finally:
        evaluation.kill()
    assert evaluation.returncode == 0, stderr
    summary = json.loads(stdout)
    assert summary["failed_episodes"] == 0
    assert summary["success_rate"] == 1.0
    assert [r["index"] for r in rows(out)] == list(range(10))
    assert len({event["pid"] for event in first.events()}) == 2  # both processes answered


def test_a_server_that_dies_mid_run_stops_the_run(servers: list[Server], tmp_path: Path) -> None:
    server = start_server(tmp_path / "log.jsonl", "--die-after", "6")
    servers.append(server)
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "40", "--concurrency", "2", "--retries", "1", "-o", str(out), "--json",
    )  # fmt: skip
    assert result.returncode == 1
    summary = json.loads(result.stdout)
    records = rows(out)
    assert [r["index"] for r in records] == list(range(40))  # every episode has its row
    statuses = [r["status"] for r in records]
    failed = statuses.count("error")
    assert 1 <= failed <= 2 + DOWN_WINDOW  # the episodes in flight, and a window's worth
    assert statuses.count("not_played") == summary["not_played"] >= 40 - 6 - failed
    assert summary["episodes"] == 40 - summary["not_played"]  # not played: not in the n
    assert summary["statuses"]["not_played"] == summary["not_played"]
    assert summary["stopped"].startswith(f"nothing answers at {server.url}")
    assert result.stderr.count("nothing answers at") == 1  # said once
    assert all(
        r["error"] is None and r["turns"] == [] for r in records if r["status"] == "not_played"
    )


def test_a_dead_port_stops_after_a_few_episodes(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", url, "--model", "m",
        "-n", "1000", "--concurrency", "4", "--retries", "1", "-o", str(out),
    )  # fmt: skip
    assert result.returncode == 1
    statuses = [r["status"] for r in rows(out)]
    assert len(statuses) == 1000
    assert statuses.count("error") <= 4 + DOWN_WINDOW
    assert statuses.count("not_played") == 1000 - statuses.count("error")
    assert f"stopped early: nothing answers at {url}" in result.stdout
    assert re.search(rf"not played +{statuses.count('not_played')} ", result.stdout)
    assert f"of {statuses.count('error')};" in result.stdout  # the rate's n: played episodes
    assert result.stderr.count("nothing answers at") == 1
    assert "Connection refused" in result.stdout


def test_a_dead_server_is_not_a_usage_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", url, "--retries", "0",
        "-o", str(out),
    )  # fmt: skip
    assert result.returncode == 1
    assert f"error: nothing answers at {url} (Connection refused)" in result.stderr
    assert "pass --model" not in result.stderr
    assert not out.exists()


def test_a_base_url_without_v1_asks_about_it(servers: list[Server], tmp_path: Path) -> None:
    server = start_server(tmp_path / "log.jsonl")
    servers.append(server)
    root = f"http://127.0.0.1:{server.port}"
    result = run("eval", "frozen_lake", "--policy", "openai", "--base-url", root, "-n", "1")
    assert result.returncode == 2
    assert f"404 at {root}/models: does the base URL end with /v1?" in result.stderr
    with_model = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", root, "--model", "m", "-n", "2"
    )
    assert with_model.returncode == 1
    assert f"HTTP 404 at {root}/chat/completions (does the base URL end with /v1?)" in (
        with_model.stdout
    )


def test_a_base_url_without_scheme_is_a_usage_error() -> None:
    result = run("eval", "frozen_lake", "--policy", "openai", "--base-url", "127.0.0.1:8000/v1")
    assert result.returncode == 2
    assert "did you mean http://127.0.0.1:8000/v1?" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_stalled_model_list_says_how_long_it_waited(
    servers: list[Server], tmp_path: Path
) -> None:
    server = start_server(tmp_path / "log.jsonl", "--answer", "stall")
    servers.append(server)
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--timeout", "0.5",
        "--retries", "0",
    )  # fmt: skip
    assert result.returncode == 1
    assert f"error: no answer from {server.url}/models within 0.5 s" in result.stderr
    assert ": )" not in result.stderr and "()" not in result.stderr
