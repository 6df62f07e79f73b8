"""`swift-gym eval --policy openai` against a real `swift deploy` (transformers backend, CPU).

The tiny random model never ends a reply by itself, so every reply runs to the request's token
cap: the case where `eval` without `--max-tokens` used to let the server generate up to its
whole context, time out and then overflow it. With eval's default settings, 8 episodes of 10
turns must all complete (the model plays badly; that is no failure). `swift deploy` serves one
request at a time unless `--max_batch_size` says otherwise; given eval's default concurrency of
32 it gets `--max_batch_size 32`, as docs/cli.md advises.

8 episodes, not the 20 of the first version: each reply is 256 tokens generated on the CPU, and
20 episodes took 213 s, the slowest test of CI (8 take about 140 s). Each episode still runs up
to 10 turns of 256-token replies, so a context fills as far as it did with 20, all at once.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import jsonl_records
import pytest
from swift_deploy import BIN, deployed, environ
from tiny_model import build_tiny_model

# pytest-timeout: a swift deploy start and 80 replies of 256 tokens: 1.5 minutes here
pytestmark = pytest.mark.timeout(900)

EVAL_TIMEOUT = 1800
EPISODES = 8


@pytest.fixture(scope="module")
def deploy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A `swift deploy` of the tiny model on 127.0.0.1; yields its base URL (up to /v1)."""
    root = tmp_path_factory.mktemp("deploy")
    model = build_tiny_model(root / "model")
    with deployed(model, root / "deploy.log", "--max_batch_size", "32") as url:
        yield url


def test_eval_with_default_settings_completes_every_episode(deploy: str, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    command = [str(BIN / "swift-gym"), "eval", "frozen_lake", "--policy", "openai",
               "--base-url", deploy, "-n", str(EPISODES), "-o", str(out), "--json"]  # fmt: skip
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=EVAL_TIMEOUT, env=environ()
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert summary["failed_episodes"] == 0, summary["errors"]
    assert summary["episodes"] == EPISODES and summary["not_played"] == 0
    assert summary["max_tokens"] == 256
    records = jsonl_records.records(out)
    assert [r["index"] for r in records] == list(range(EPISODES))
    assert all(r["error"] is None and r["num_turns"] >= 1 for r in records)
