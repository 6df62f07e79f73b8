"""Envs on a real Ray cluster of three nodes on this machine (a head without CPUs, two workers):
`swift-gym eval` and `swift_gym.evaluate` with the Ray setting on.

The cluster lives in a network namespace of its own (`netns`); `scenarios.py` plays the runs
once and reports what happened, and each test checks one claim about it.
"""

from __future__ import annotations

from typing import Any

import netns
import pytest


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return netns.run("scenarios.py")  # type: ignore[no-any-return]


def places(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [place for episode in run["places"] for place in episode if place is not None]


def test_swift_gym_eval_on_ray_scores_the_oracle_1_0(report: dict[str, Any]) -> None:
    cli = report["cli"]
    assert cli["returncode"] == 0, cli["stderr"]
    assert "success rate     1.000  200 of 200" in cli["stdout"]
    assert (cli["episodes"], cli["successes"], cli["errors"]) == (200, 200, [])


def test_every_reset_and_step_is_played_on_a_worker_node(report: dict[str, Any]) -> None:
    cli = report["cli"]
    assert all(None not in episode for episode in cli["places"])  # reset and every step
    played = places(cli)
    assert {place["node_id"] for place in played} <= set(report["workers"])
    assert report["head"] not in {place["node_id"] for place in played}
    pids = {place["pid"] for place in played}
    assert cli["pid"] not in pids and report["script_pid"] not in pids


def test_actors_are_reused_across_episodes(report: dict[str, Any]) -> None:
    for run in ("cli", "backpressure"):
        actors = {(place["node_id"], place["pid"]) for place in places(report[run])}
        assert 1 <= len(actors) <= 4  # the 4 CPUs of the workers, one actor each at most
        assert len(actors) < report[run]["episodes"] / 5


def test_more_episodes_than_the_cluster_holds_wait_and_all_complete(
    report: dict[str, Any],
) -> None:
    run = report["backpressure"]  # one episode per actor, 12 at once, 4 CPUs
    assert (run["episodes"], run["successes"], run["errors"]) == (40, 40, [])
    assert len({place["pid"] for place in places(run)}) <= 4


def test_no_actor_is_left_after_a_run(report: dict[str, Any]) -> None:
    assert report["actors_after_cli"] == 0
    assert report["actors_after_backpressure"] == 0
    assert report["actors_after_kill"] == 0


def test_a_killed_node_ends_only_its_episodes_and_later_ones_run(
    report: dict[str, Any],
) -> None:
    run, killed = report["kill"], report["killed_node"]
    assert run["episodes"] == 80
    on_killed = [a for a in run["actors_before_kill"] if a["node_id"] == killed]
    assert on_killed  # the node held actors when it went
    assert 1 <= len(run["errors"]) <= 2 * len(on_killed)  # at most their episodes in flight
    for error in run["errors"]:
        assert "RayEnvError" in error and "the Ray actor playing this episode is gone" in error
        assert killed in error
    assert run["successes"] == run["episodes"] - len(run["errors"])
    last_error = max(run["error_indices"])
    assert last_error < run["episodes"] - 8  # the episodes after it played
    later = [
        place
        for index, episode in enumerate(run["places"])
        if index > last_error
        for place in episode
    ]
    assert later and None not in later  # each reset and step of them was played
    assert {place["node_id"] for place in later} == set(report["workers"]) - {killed}


def test_an_env_whose_actor_fits_no_node_fails_before_any_episode(
    report: dict[str, Any],
) -> None:
    assert report["infeasible"].startswith("RaySettingError: env 'frozen_lake' on Ray: no node")
    assert "{'GPU': 1.0}" in report["infeasible"]
    assert report["actors_after_infeasible"] == 0
