"""Envs that start processes, played on a Ray cluster (SWIFT_GYM_RAY_ADDRESS): a sandbox
(reasoning-gym's `python` tool, bubblewrap), an MCP server (`mcp_tools`, a stdio server) and an
agent program (`agent_openai_loop`) run on the actor's node, under the actor's process, never
under the process that plays the episodes; the env-side settings reach the actors only by
forwarding; each episode's close ends its processes; nothing is left after the run, nor after
the caller is SIGKILLed mid-episode.

`ray_heavy_envs.py` plays three episodes of each (one at a time) from a child process, against
a cluster of a head without CPUs and two workers, in a network namespace of its own (`netns`),
while a watcher thread records each marked process's ancestors from /proc; then a second child,
holding a sandbox and an MCP server, is killed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import netns
import pytest

pytest.importorskip("mcp")
pytest.importorskip("swift_gym_reasoning_gym", reason="pip install plugins/reasoning_gym")
pytest.importorskip("agent_openai_loop", reason="pip install examples/agent_openai_loop")

EPISODES = 3
KINDS = ("python", "mcp", "agent")
SESSIONS = EPISODES + 2  # and the two episodes cut off, of each of python and mcp


@pytest.fixture(scope="module")
def report(bwrap: str) -> dict[str, Any]:
    script = str(Path(__file__).with_name("ray_heavy_envs.py"))
    result: dict[str, Any] = netns.run(script, bwrap, timeout=300)
    child = result["child"]
    assert child["returncode"] == 0 and result["played"], child["stderr"]
    return result


def actor_pids(report: dict[str, Any], *kinds: str) -> set[int]:
    played = report["played"]
    return {place["pid"] for kind in kinds for e in played[kind] for place in e["places"]}


def watched(report: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [entry for entry in report["watched"] if entry["kind"] == kind]


def test_every_reset_and_step_is_played_by_an_actor_on_a_worker_node(
    report: dict[str, Any],
) -> None:
    caller = report["child"]["pid"]
    assert report["played"]["pid"] == caller
    for kind in KINDS:
        episodes = report["played"][kind]
        assert len(episodes) == EPISODES
        for episode in episodes:
            assert episode["error"] is None, episode["error"]
            assert len(episode["places"]) == 3  # reset, the tool call's step, the answer's
            for place in episode["places"]:
                assert place["node_id"] in report["workers"]
                assert place["node_id"] != report["head"]
                assert place["pid"] not in (caller, report["script_pid"])


def test_each_sandbox_ran_under_its_actor_and_not_under_the_caller(
    report: dict[str, Any],
) -> None:
    caller, actors = report["child"]["pid"], actor_pids(report, "python", "python_cut")
    sandboxes = watched(report, "sandbox")
    assert report["sandbox_starts"] == SESSIONS  # one per episode, each through the mark
    for entry in sandboxes:  # the sessions', and the probe of bwrap each actor made first
        assert actors & set(entry["ancestors"])
        assert caller not in entry["ancestors"]
    sessions = [e for e in sandboxes if e["repl"] and e["program"] == "bwrap"]
    inside = [e for e in sandboxes if e["repl"] and e["program"] != "bwrap"]
    assert len(sessions) == len(inside) == SESSIONS
    for entry in sessions:
        assert entry["ancestors"][0] in actors  # bubblewrap is the actor's own child
    for entry in inside:
        assert "import inside" in entry["command"]
        assert entry["ancestors"][0] in {session["pid"] for session in sessions}
        assert entry["ancestors"][1] in actors


def test_the_sandbox_printed_the_value_the_env_scored(report: dict[str, Any]) -> None:
    for episode in report["played"]["python"]:
        assert episode["observation"].startswith("Calculate ")
        ((printed,), answered) = episode["tool_results"]
        assert answered == []  # the answer's turn: no call
        # pid 1: the code ran as PID 1 of the sandbox's own PID namespace
        assert re.fullmatch(r"stdout:\npid 1\n-?\d+(/\d+)?", printed), printed
        assert episode["status"] == "correct"  # the env's check of the value the policy echoed
        assert episode["success"] is True and episode["total_reward"] == 1.0


def test_each_mcp_server_ran_under_its_actor_and_not_under_the_caller(
    report: dict[str, Any],
) -> None:
    caller, actors = report["child"]["pid"], actor_pids(report, "mcp", "mcp_cut")
    servers = watched(report, "mcp_server")
    # each server wrote its own pid: the watcher saw every one, and nothing else marked
    assert sorted(entry["pid"] for entry in servers) == report["server_pids"]
    assert len(servers) == SESSIONS
    for entry in servers:
        # the actor's child, or its grandchild through bwrap (the server's PID namespace)
        assert actors & set(entry["ancestors"][:2])
        assert caller not in entry["ancestors"]


def test_the_mcp_tool_answered_through_the_forwarded_setting(report: dict[str, Any]) -> None:
    """SWIFT_GYM_MCP_SERVERS is set in the caller's environment only, not on the nodes: the
    actors' env found the server `calc` through the setting forwarded with the actor."""
    for episode in report["played"]["mcp"]:
        assert episode["tool_results"] == [["42"], []]
        assert episode["status"] == "correct"
        assert episode["success"] is True and episode["total_reward"] == 1.0


def test_the_agent_program_played_on_a_worker_and_scored(report: dict[str, Any]) -> None:
    for episode in report["played"]["agent"]:
        a, b = map(int, re.fullmatch(r"What is (\d+) \+ (\d+)\?", episode["observation"]).groups())  # type: ignore[union-attr]
        assert episode["tool_results"] == [[str(a + b)], []]  # the program's own `add` ran
        assert episode["status"] == "solved"
        assert episode["success"] is True and episode["total_reward"] == 1.0
    assert actor_pids(report, "agent").isdisjoint({report["child"]["pid"], report["script_pid"]})


def test_each_episodes_close_ends_its_processes_while_the_actor_lives(
    report: dict[str, Any],
) -> None:
    """At each episode's first reply (the policy looked): the actor that played the episodes
    before lives, and none of their sandboxes or servers does."""
    python, mcp = report["played"]["notes"]["python"], report["played"]["notes"]["mcp"]
    assert len(python) == len(mcp) == EPISODES
    for notes in (python, mcp):
        assert all(note["actor_alive"] for note in notes)
        assert len({note["actor"] for note in notes}) == 1  # one actor played them in turn
    assert [note["sandboxes"] for note in python] == [[]] * EPISODES  # this one's starts later
    for index, note in enumerate(mcp):
        assert len(note["server_pids_written"]) == index + 1
        assert note["servers"] == note["server_pids_written"][-1:]  # only this episode's


def test_episodes_cut_off_at_max_turns_end_their_processes_while_the_actor_lives(
    report: dict[str, Any],
) -> None:
    """Episodes that never finish (a tool call at every turn, cut off at one turn): only their
    close can end the sandbox or server they opened."""
    played = report["played"]
    for kind in ("python_cut", "mcp_cut"):
        for episode in played[kind]:
            assert episode["error"] is None, episode["error"]
            assert episode["status"] == "max_turns" and len(episode["tool_results"]) == 1
        notes = played["notes"][kind]
        assert len(notes) == 2 and all(note["actor_alive"] for note in notes)
        assert notes[0]["actor"] == notes[1]["actor"]
    assert [e["tool_results"] for e in played["python_cut"]] == [[["stdout:\n7"]]] * 2
    assert [e["tool_results"] for e in played["mcp_cut"]] == [[["3"]]] * 2
    assert [note["sandboxes"] for note in played["notes"]["python_cut"]] == [[], []]
    first, second = played["notes"]["mcp_cut"]
    assert len(first["servers"]) == 1 and second["servers"] == second["server_pids_written"][-1:]
    assert first["servers"][0] in second["server_pids_written"][:-1]  # ended, not still there


def test_no_actor_sandbox_or_server_is_left_after_the_run(report: dict[str, Any]) -> None:
    assert report["watched"] and report["scans"] > 0
    assert report["actors_left"] == []
    assert report["left"] == {"sandboxes": [], "servers": [], "watched_alive": []}


def test_a_killed_caller_leaves_no_actor_sandbox_or_server(report: dict[str, Any]) -> None:
    """The caller SIGKILLed while a sandbox runs its code and an MCP server serves: Ray ends
    the actors it owned, and their sandboxes and servers end with them."""
    killed = report["killed"]
    assert killed["exited_early"] is None, killed["stderr"]
    actors = {actor["pid"] for actor in killed["actors_at_kill"]}
    assert {actor["node_id"] for actor in killed["actors_at_kill"]} <= set(report["workers"])
    running = killed["alive_at_kill"]
    kinds = sorted(
        (e["kind"], e["program"] == "bwrap")
        for e in running
        if e["repl"] or e["kind"] == "mcp_server"
    )
    assert kinds == [("mcp_server", False), ("sandbox", False), ("sandbox", True)]
    for entry in running:
        assert actors & set(entry["ancestors"])
        assert killed["child_pid"] not in entry["ancestors"]
    (inside,) = [e for e in running if e["repl"] and e["program"] != "bwrap"]
    assert "wall_seconds=300.0" in inside["command"]  # SWIFT_GYM_SANDBOX_LIMITS, forwarded
    assert [e["pid"] for e in running if e["kind"] == "mcp_server"] == killed["server_pids"]
    assert killed["actors_left"] == []
    assert killed["left"] == {"sandboxes": [], "servers": [], "watched_alive": []}
