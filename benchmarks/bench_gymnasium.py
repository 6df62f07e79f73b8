"""Gymnasium adapter speed: swift-gym-gymnasium's steps per second against Gymnasium directly.

For each of the six envs, the same episodes twice, in turns: through the adapter (`await
env.step(messages)` with `<action>NAME</action>` replies: reading the reply, Gymnasium's step,
the text of the observation, the info) and through `gymnasium.make(id)` called directly with the
same action numbers. Both build their Gymnasium env the same way (the same wrappers, the passive
checker off), so the ratio is the adapter's own cost. Actions are drawn uniformly before timing;
at the end of an episode both reset (seed 0), either the same env or a new one (as ms-swift
builds one per trajectory). Checked afterwards: both sides played
the same number of episodes with the same total reward.

Needs gymnasium and swift-gym-gymnasium installed (`tox -e bench` runs it through run.py; the
`swift` env, which has every env package, runs the short form).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
from typing import Any

import gymnasium
from bench_timing import goal, interleaved, median, paired_ratio, ratio_row, timed, write_json

import swift_gym
from swift_gym_gymnasium.ids import GYM_IDS as IDS


def workload(gym_id: str, steps: int) -> tuple[list[int], list[list[dict[str, str]]]]:
    """The action numbers, and the same actions as the adapter's step() arguments."""
    actions = swift_gym.get_env_class(f"gymnasium.{gym_id}").actions
    rng = random.Random(gym_id)
    numbers = [rng.randrange(len(actions)) for _ in range(steps)]
    replies = [
        [{"role": "assistant", "content": f"<action>{actions[n]}</action>"}] for n in numbers
    ]
    return numbers, replies


def play_direct(gym_id: str, numbers: list[int], fresh: bool) -> tuple[int, float]:
    """Gymnasium alone: (episodes, total reward). `fresh`: a new env per episode."""
    env = gymnasium.make(gym_id, disable_env_checker=True)
    env.reset(seed=0)
    episodes, total = 1, 0.0
    for action in numbers:
        _, reward, terminated, truncated, _ = env.step(action)
        total += float(reward)
        if terminated or truncated:
            if fresh:
                env.close()
                env = gymnasium.make(gym_id, disable_env_checker=True)
            env.reset(seed=0)
            episodes += 1
    env.close()
    return episodes, total


async def play_adapter(
    gym_id: str, replies: list[list[dict[str, str]]], fresh: bool
) -> tuple[int, float]:
    """The same through swift-gym-gymnasium: (episodes, total reward)."""
    cls = swift_gym.get_env_class(f"gymnasium.{gym_id}")
    env = cls({"seed": 0})
    await env.reset()
    episodes, total = 1, 0.0
    for messages in replies:
        _, reward, done, _ = await env.step(messages)
        total += reward
        if done:
            if fresh:
                await env.close()
                env = cls({"seed": 0})  # as ms-swift builds an env per trajectory
            await env.reset()
            episodes += 1
    await env.close()
    return episodes, total


WHY = (
    "a Gymnasium toy-text step costs 6 to 10 us here (a numpy draw from its transition table, "
    "two wrappers); the adapter's own work per step (reading the reply, the observation text "
    "and the step's description, both from caches, an info dict of about ten keys, the "
    "coroutine) is about 3 us of CPython, a share that only a dearer step hides: Blackjack's, or "
    "gymnasium.make's when every episode builds a new env."
)
MODES = {False: "one env, reset after each episode", True: "a new env for each episode"}


def measure(steps: int, repeats: int) -> dict[str, Any]:
    rows, goals = [], []
    for fresh, mode in MODES.items():
        for gym_id in IDS:
            numbers, replies = workload(gym_id, steps)
            direct = play_direct(gym_id, numbers, fresh)
            adapter = asyncio.run(play_adapter(gym_id, replies, fresh))
            if direct[0] != adapter[0] or abs(direct[1] - adapter[1]) > 1e-6:
                raise AssertionError(f"{gym_id}: different episodes: {direct} != {adapter}")

            def run_direct(numbers: list[int] = numbers, gym_id: str = gym_id) -> float:
                gc.collect()
                return steps / timed(lambda: play_direct(gym_id, numbers, fresh))  # noqa: B023

            def run_adapter(replies: list[Any] = replies, gym_id: str = gym_id) -> float:
                gc.collect()
                return steps / timed(
                    lambda: asyncio.run(play_adapter(gym_id, replies, fresh))  # noqa: B023
                )

            results = interleaved({"adapter": run_adapter, "gymnasium": run_direct}, repeats)
            ours, base = median(results["adapter"]), median(results["gymnasium"])
            paired = paired_ratio(results["adapter"], results["gymnasium"])
            name = f"steps/s, {gym_id}, {mode} ({direct[0]} episodes)"
            rows.append({**ratio_row(name, ours, base, "/s"), "ratio": paired})
            goals.append(
                goal(
                    f">= 0.9x Gymnasium directly: {gym_id}, {mode}",
                    f"{paired:.2f}x",
                    paired >= 0.9,
                    WHY,
                )
            )
    return {
        "benchmark": "Gymnasium adapter speed",
        "repeats": repeats,
        "detail": f"{steps} steps of uniformly random actions per repeat and side; "
        f"median of {repeats} repeats (short ones, many of them: the sides take turns often, "
        "so a neighbour's load hits both)",
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.steps, args.repeats))


if __name__ == "__main__":
    main()
