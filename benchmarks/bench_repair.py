"""code.repair episodes at once on a small machine: none may fail, and what concurrency buys.

Goal (issue 37's): 16 concurrent repair episodes on 2 cores with none failing. The oracle
plays `--episodes` shipped tasks (spread over the projects: every k-th of the sorted list)
through `swift_gym.evaluate`, `--concurrency` at a time (each episode: a workspace with the
buggy project, the reverse edit through `edit_file`, `submit`, then a fresh grader workspace
running the project's whole pytest suite), against the same episodes one at a time in the
same run. Reported: seconds per episode each way, their ratio, and how many episodes failed
or did not score 1.0 (the goal's count). The projects' sdists are fetched into the operator's
cache (`SWIFT_GYM_CODE_CACHE`) and the buggy trees made before timing (a warm-up pass).
Needs bubblewrap and swift-gym-code; where the sandbox cannot run, it says so and reports
nothing.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from bench_timing import goal, median, ratio_row, without_sandbox, write_json

import swift_gym
from swift_gym.errors import SandboxUnavailableError

GOAL_EPISODES = 16


def chosen_tasks(episodes: int) -> list[str]:
    """`episodes` task ids spread evenly over the sorted shipped list."""
    from swift_gym_code.repair_env import tasks

    ids = [task.id for task in tasks()]
    step = max(1, len(ids) // episodes)
    return ids[::step][:episodes]


def play(task_ids: list[str], concurrency: int) -> tuple[float, int]:
    """(seconds, episodes that failed or scored below 1.0) of one oracle run."""
    configs = [{"name": "code.repair", "task_id": task_id} for task_id in task_ids]
    started = time.perf_counter()
    result = swift_gym.evaluate(configs, "oracle", episodes=1, concurrency=concurrency)
    seconds = time.perf_counter() - started
    bad = sum(
        1
        for record in result.records
        if record["status"] != "resolved" or record["total_reward"] != 1.0
    )
    return seconds, bad


def measure(episodes: int, concurrency: int, repeats: int) -> dict[str, Any]:
    task_ids = chosen_tasks(episodes)
    play(task_ids, concurrency)  # warm-up: sdists fetched, buggy trees made, pytest copied
    together, alone, failures = [], [], 0
    for _ in range(repeats):
        seconds, bad = play(task_ids, concurrency)
        together.append(seconds / len(task_ids))
        failures += bad
        seconds, bad = play(task_ids, 1)
        alone.append(seconds / len(task_ids))
        failures += bad
    ours, base = median(together), median(alone)
    row = ratio_row(f"seconds per episode, {concurrency} at once vs one at a time", ours, base, "s")
    return {
        "benchmark": "code.repair episodes at once",
        "repeats": repeats,
        "detail": (
            f"{len(task_ids)} shipped code.repair tasks played by the oracle through "
            f"swift_gym.evaluate, {concurrency} at a time against one at a time; each episode a "
            "workspace, an edit_file and a submit, then the project's whole suite in a grader "
            "workspace. Median of the runs"
        ),
        "rows": [row],
        "goals": [
            goal(
                f"{GOAL_EPISODES} concurrent repair episodes on 2 cores, none failing",
                f"{failures} of {2 * repeats * len(task_ids)} episodes failed (half of them "
                f"{concurrency} at once, half one at a time)",
                failures == 0 and concurrency >= GOAL_EPISODES,
                "" if concurrency >= GOAL_EPISODES else f"only {concurrency} at once measured",
            )
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=GOAL_EPISODES)
    parser.add_argument("--concurrency", type=int, default=GOAL_EPISODES)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    try:
        measured = measure(args.episodes, args.concurrency, args.repeats)
    except SandboxUnavailableError as error:
        measured = without_sandbox("code.repair episodes at once", error)
    write_json(args.json, measured)


if __name__ == "__main__":
    main()
