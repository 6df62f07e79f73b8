"""`swift-gym eval --policy openai` against a real `swift deploy` (transformers backend, CPU).

The tiny random model never ends a reply by itself, so every reply runs to the request's token
cap: the case where `eval` without `--max-tokens` used to let the server generate up to its
whole context, time out and then overflow it. With eval's default settings, 20 episodes of 10
turns must all complete (the model plays badly; that is no failure). `swift deploy` serves one
request at a time unless `--max_batch_size` says otherwise; given eval's default concurrency of
32 it gets `--max_batch_size 32`, as docs/cli.md advises.
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

EVAL_TIMEOUT = 1800


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
               "--base-url", deploy, "-n", "20", "-o", str(out), "--json"]  # fmt: skip
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=EVAL_TIMEOUT, env=environ()
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert summary["failed_episodes"] == 0, summary["errors"]
    assert summary["episodes"] == 20 and summary["not_played"] == 0
    assert summary["max_tokens"] == 256
    records = jsonl_records.records(out)
    assert [r["index"] for r in records] == list(range(20))
    assert all(r["error"] is None and r["num_turns"] >= 1 for r in records)
