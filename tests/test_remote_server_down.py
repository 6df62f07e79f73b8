"""An env server that dies mid-eval stops the run as a dead model endpoint does: the episodes in
flight end with their errors, no new one starts, the rest are recorded `not_played`, and the run
says so once. Against a real `swift-gym serve` process, killed with a real SIGKILL."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import pytest
import serve_process
from cli_runner import run

from swift_gym.evaluation import evaluate_async

pytest.importorskip("websockets")


class Notes:
    """A run view that keeps the run's notes (the library's `RunView` protocol)."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, str]] = []

    def start(self, label: str, total: int) -> None:
        return None

    def advance(self, record: dict[str, Any], wins: int) -> None:
        return None

    def note(self, kind: str, message: str) -> None:
        self.notes.append((kind, message))

    def end(self) -> None:
        return None


def test_a_server_killed_mid_eval_stops_the_run_and_the_rest_is_not_played() -> None:
    server = serve_process.start("frozen_lake")
    starts = 0

    def policy(messages: list[dict[str, Any]], env: Any) -> str:
        """Kills the server as the third episode plays its first turn."""
        nonlocal starts
        if messages[-1]["role"] == "user" and len(messages) <= 2:
            starts += 1
            if starts == 3:
                server.stop(signal.SIGKILL)
        return "<action>left</action>"

    view = Notes()
    env = {"name": "openenv", "base_url": server.url}
    playing = evaluate_async(env, policy, episodes=12, max_turns=2, concurrency=1, progress=view)
    try:
        result = asyncio.run(playing)
    finally:
        server.stop(signal.SIGKILL)
    statuses = [record["status"] for record in result.records]
    errors = [record["error"] for record in result.records]
    assert statuses[2:] == ["error", "error"] + ["not_played"] * 8, errors
    assert "error" not in statuses[:2]
    assert "connection lost" in errors[2]  # in flight when the server died
    assert "ServerDownError" in errors[3] and "cannot connect" in errors[3]  # found it down
    assert "env server" in str(result.stopped) and server.url.replace("http", "ws") in str(
        result.stopped
    )
    assert [kind for kind, _ in view.notes] == ["stopping"]
    assert "No new episodes" in view.notes[0][1]


def test_eval_on_a_dead_env_server_stops_at_once_and_says_so_once(tmp_path: Path) -> None:
    server = serve_process.start("frozen_lake")
    url = server.url
    server.stop(signal.SIGKILL)  # nothing listens there any more
    out = tmp_path / "played.jsonl"
    result = run("eval", "openenv", "--set", f"base_url={url}", "-n", "20", "--concurrency", "4",
                 "--policy", "random", "-o", str(out))  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.count("stopping:") == 1, result.stderr
    assert "the env server is down: ws://127.0.0.1" in result.stderr
    assert "No new episodes" in result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    statuses = [record["status"] for record in records]
    failed = statuses.count("error")  # those that began before the first one failed: 4 at most
    assert 1 <= failed <= 4 and statuses == ["error"] * failed + ["not_played"] * (20 - failed)
    assert all("cannot connect" in record["error"] for record in records[:failed])
