"""The `swift_gym` scheduler with envs on a real Ray cluster (a head without CPUs, two workers),
on both of ms-swift's multi-turn paths: every reset and step played on a worker node, the
actors reused across batches and paths, none left after."""

from __future__ import annotations

from typing import Any

import netns
import pytest

pytest.importorskip("swift.rollout.multi_turn", reason="ms-swift is not installed")


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return netns.run("scheduler_scenarios.py")  # type: ignore[no-any-return]


@pytest.mark.parametrize("path", ["server", "colocate"])
def test_both_paths_solve_every_row_on_worker_nodes(report: dict[str, Any], path: str) -> None:
    for episodes in report[path]:
        assert [e["total_reward"] for e in episodes] == [1.0] * 8
        assert [e["env_error"] for e in episodes] == [None] * 8
        for episode in episodes:
            assert None not in episode["places"]  # the reset's info and every step's
            for place in episode["places"]:
                assert place["node_id"] in report["workers"]
                assert place["pid"] != report["script_pid"]


def test_actors_are_reused_across_batches_and_paths(report: dict[str, Any]) -> None:
    actors = {
        (place["node_id"], place["pid"])
        for path in ("server", "colocate")
        for episodes in report[path]
        for episode in episodes
        for place in episode["places"]
    }
    assert 1 <= len(actors) <= 4  # 32 episodes; frozen_lake plays 16 at once per actor


def test_no_actor_is_left_after_the_placement_shuts_down(report: dict[str, Any]) -> None:
    assert report["actors_during"] >= 1
    assert report["actors_after"] == 0


def test_a_process_already_on_the_cluster_keeps_its_connection(report: dict[str, Any]) -> None:
    # the driver of `megatron rlhf --use_ray` runs the scheduler after its own ray.init
    assert report["still_connected"] is True
