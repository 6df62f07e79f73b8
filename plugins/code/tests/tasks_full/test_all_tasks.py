"""The full validation of code.repair's shipped tasks (`tox -e code-tasks`, outside CI's list:
it runs every task's suite several times over, which takes long): the installed `swift-gym
eval` plays every task with the oracle (all 1.0) and with the random policy (at most 0.05),
and `swift-gym-code generate` rebuilds the shipped list from the same sdists, byte for byte.
The `code` env runs the short form (one task per project, the oracle) in test_repair_env.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from swift_gym_code.repair.tasks import load_tasks, shipped_tasks_text

pytestmark = [pytest.mark.usefixtures("bwrap"), pytest.mark.timeout(4 * 3600)]

BIN = Path(sys.executable).parent
TASKS = load_tasks()
CONCURRENCY = str(max(1, min(4, os.cpu_count() or 1)))


def _eval(policy: str, out: Path) -> list[dict]:
    command = ["eval", "code.repair", "--policy", policy, "-n", str(len(TASKS))]
    done = subprocess.run(
        [BIN / "swift-gym", *command, "--concurrency", CONCURRENCY, "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == len(TASKS)
    # seeds 0..n-1 pick each task once (seed % the number of tasks)
    assert sorted(r["reset_info"]["task_id"] for r in records) == [t.id for t in TASKS]
    return records


def test_the_oracle_solves_every_shipped_task(tmp_path):
    records = _eval("oracle", tmp_path / "oracle.jsonl")
    unsolved = {
        r["reset_info"]["task_id"]: r["turns"][-1]["info"].get("failing_tests")
        for r in records
        if r["total_reward"] != 1.0
    }
    assert not unsolved, unsolved


def test_the_random_policy_solves_almost_none(tmp_path):
    records = _eval("random", tmp_path / "random.jsonl")
    mean = sum(r["total_reward"] for r in records) / len(records)
    assert mean <= 0.05, mean


def test_generate_rebuilds_the_shipped_list_byte_for_byte(tmp_path):
    out = tmp_path / "tasks.jsonl"
    done = subprocess.run(
        [BIN / "swift-gym-code", "generate", "-o", str(out), "--workers", CONCURRENCY],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert out.read_text(encoding="ascii") == shipped_tasks_text()
