"""reasoning-gym's `python` tool through `swift-gym serve` and the `openenv` env, the user's
route: `swift-gym dataset --remote` writes the rows, `swift-gym eval --policy openai` plays them
against a scripted OpenAI-compatible server on 127.0.0.1 (`openai_server.py --answer python`)
whose model calls `python` with code for the question, then answers with what it printed.

Here because this env installs reasoning-gym beside the core's `serve` and `remote` extras.
Proof that each call ran in the sandbox on the server's side: the code prints its PID, which is
1 only in the sandbox's own PID namespace.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serve_process
from cli_runner import run

MODEL = Path(__file__).parents[1] / "openai_server.py"
ROWS = 8


@pytest.fixture
def model(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(base URL, request log) of the scripted model's server, killed after the test."""
    log = tmp_path / "model.log"
    process = subprocess.Popen(
        [sys.executable, str(MODEL), "--port", "0", "--log", str(log), "--answer", "python"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert select.select([process.stdout], [], [], 60)[0], "the model's server did not start"
        port = int(process.stdout.readline().split()[1])
        yield f"http://127.0.0.1:{port}/v1", log
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def served(bwrap: str) -> Iterator[serve_process.Server]:
    """`swift-gym serve reasoning_gym.basic_arithmetic` (its `python` tool needs bubblewrap)."""
    server = serve_process.start("reasoning_gym.basic_arithmetic", timeout=120)
    yield server
    server.stop()


def records_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_served_python_tool_rows_score_one_through_the_openenv_env(
    served: serve_process.Server, model: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = model
    rows = tmp_path / "rows.jsonl"
    made = run("dataset", "reasoning_gym.basic_arithmetic", "-n", str(ROWS), "--set",
               'tools=["python"]', "--remote", served.url, "-o", str(rows))  # fmt: skip
    assert made.returncode == 0, made.stderr
    out = tmp_path / "played.jsonl"
    proxies = [key for key in os.environ if "proxy" in key.lower()]
    played = run(
        "eval", "--dataset", str(rows), "--policy", "openai", "--base-url", url,
        "--model", "scripted", "-o", str(out), "--json",
        env={"NO_PROXY": "127.0.0.1"}, drop=[*proxies, "OPENAI_API_KEY"],
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    summary = json.loads(played.stdout)
    assert summary["episodes"] == ROWS and summary["failed_episodes"] == 0
    assert summary["success_rate"] == 1.0 and summary["mean_reward"] == 1.0
    for record in records_of(out):
        assert record["env"] == "openenv" and record["total_reward"] == 1.0
        assert record["env_config"]["env_config"]["tools"] == ["python"]
        assert [tool["function"]["name"] for tool in record["tools"]] == ["python"]
        called, answered = record["turns"]
        (call,) = called["tool_calls"]
        (printed,) = called["tool_results"]
        assert call["name"] == "python" and printed["tool_call_id"] == call["id"]
        assert printed["content"].startswith("stdout:\npid 1\n")  # the server's sandbox ran it
        value = printed["content"].removeprefix("stdout:\n").splitlines()[-1]
        assert answered["reply"] == f"It printed it. <answer>{value}</answer>"
        assert answered["info"]["status"] == "correct" and answered["done"]
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    began = [request for request in requests if request["event"] == "begin"]
    assert len(began) == 2 * ROWS
    assert all(request["tools"] == ["python"] for request in began)
    assert sorted(request["roles"][-1] for request in began) == ["tool"] * ROWS + ["user"] * ROWS
