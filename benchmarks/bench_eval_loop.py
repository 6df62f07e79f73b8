"""`swift_gym.evaluate`'s episode loop against the same episodes played by hand.

FrozenLake (4x4, `<action>` replies) on seeds 0..E-1 with the random and the oracle policies,
as `swift-gym eval -o FILE` plays them: `evaluate(..., output=FILE, keep_records=False)`, 32
episodes at a time (the default), each turn's record built and each episode written to the
trajectory file. The baseline is what a user writes without swift-gym's loop: the same env
built with `swift_gym.make`, reset, then for each turn the same reply (the oracle's, or the
random policy's draw from the same per-episode RNG) appended to the chat and stepped, until
done or the env's `max_turns_hint()`; one episode after another, nothing recorded. The
difference is what evaluate adds per episode: its checks of what the env returned, the chat's
layout, the records, the file, the concurrency.

Checked: both sides play the same episodes (the same number of turns and the same total
reward), and the oracle reaches every goal. `bench_against.py` runs `per_episode` of one tree
against another's.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import tempfile
from typing import Any

from bench_timing import interleaved, median, paired_ratio, ratio_row, timed, write_json

import swift_gym
from swift_gym.evaluation.policies import GENERIC_REPLIES

ENV = "frozen_lake"
POLICIES = ("random", "oracle")


def episode_rng(index: int, seed: int) -> random.Random:
    """The RNG evaluate gives episode `index` (its `episode_rng`), so the random policy draws
    the same replies on both sides (checked by the totals)."""
    return random.Random(f"swift-gym/eval/{index}/{seed}")


async def play_by_hand(policy: str, episodes: int) -> tuple[int, float]:
    """(turns, total reward) of the episodes played without evaluate."""
    turns, reward = 0, 0.0
    for index in range(episodes):
        env = swift_gym.make({"name": ENV, "seed": index})
        observation, _info, system = await env.reset()
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": observation},
        ]
        rng = episode_rng(index, index)
        for _ in range(env.max_turns_hint()):
            reply = env.oracle_reply() if policy == "oracle" else rng.choice(GENERIC_REPLIES)
            messages.append({"role": "assistant", "content": reply})
            observation, step_reward, done, _info = await env.step(messages)
            messages.append({"role": "user", "content": observation})
            turns += 1
            reward += step_reward
            if done:
                break
        await env.close()
    return turns, reward


def through_evaluate(policy: str, episodes: int) -> tuple[int, float]:
    """(turns, total reward) of the episodes played by `swift_gym.evaluate`, as `eval -o`."""
    descriptor, path = tempfile.mkstemp(prefix="bench-eval-", suffix=".jsonl")
    os.close(descriptor)
    try:
        result = swift_gym.evaluate(ENV, policy, episodes=episodes, output=path, keep_records=False)
    finally:
        os.unlink(path)
    records = result.records
    if len(records) != episodes or any(r["status"] == "error" for r in records):
        raise AssertionError(f"evaluate {policy}: {len(records)} records, or an error")
    return sum(r["num_turns"] for r in records), sum(r["total_reward"] for r in records)


SIDES = {"evaluate": through_evaluate, "by hand": lambda p, n: asyncio.run(play_by_hand(p, n))}


def per_episode(side: str, policy: str, episodes: int, played: dict[str, Any]) -> float:
    """Seconds per episode of one run of `side`; its (turns, reward) is kept in `played`."""
    gc.collect()
    outcome: list[tuple[int, float]] = []
    seconds = timed(lambda: outcome.append(SIDES[side](policy, episodes)))
    previous = played.setdefault((side, policy, episodes), outcome[0])
    if previous != outcome[0]:
        raise AssertionError(f"{side} {policy}: {outcome[0]} turns and reward, then {previous}")
    return seconds / episodes


def check_same(played: dict[Any, tuple[int, float]], episodes: int) -> None:
    """Both sides played the same episodes; the oracle reached every goal."""
    for policy in POLICIES:
        ours = played[("evaluate", policy, episodes)]
        theirs = played[("by hand", policy, episodes)]
        if ours[0] != theirs[0] or abs(ours[1] - theirs[1]) > 1e-6:
            raise AssertionError(f"{policy}: evaluate played {ours}, the loop by hand {theirs}")
    if played[("evaluate", "oracle", episodes)][1] != episodes:
        raise AssertionError(f"the oracle missed goals: {played[('evaluate', 'oracle', episodes)]}")


def measure(episodes: int, repeats: int) -> dict[str, Any]:
    played: dict[Any, tuple[int, float]] = {}
    rows = []
    for policy in POLICIES:
        times = interleaved(
            {
                side: (lambda s=side, p=policy: per_episode(s, p, episodes, played))
                for side in SIDES
            },
            repeats,
        )
        ours, base = median(times["evaluate"]) * 1e6, median(times["by hand"]) * 1e6
        row = ratio_row(f"time per episode, {policy} policy, evaluate vs by hand", ours, base, "us")
        row["ratio"] = paired_ratio(times["evaluate"], times["by hand"])
        rows.append(row)
    check_same(played, episodes)
    turns = {p: played[("evaluate", p, episodes)][0] / episodes for p in POLICIES}
    return {
        "benchmark": "evaluate's episode loop",
        "repeats": repeats,
        "detail": (
            f"{episodes} FrozenLake episodes (4x4, seeds 0..{episodes - 1}) per run: "
            f"swift_gym.evaluate with a trajectory file and keep_records=False, as `swift-gym "
            f"eval -o` runs it, against the same episodes played by hand (make, reset, step); "
            f"{turns['random']:.1f} turns an episode with the random policy, "
            f"{turns['oracle']:.1f} with the oracle. Median of {repeats} runs per side, in "
            "turns; the ratio is the median of each round's ratio"
        ),
        "rows": rows,
        "goals": [],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.episodes, args.repeats))


if __name__ == "__main__":
    main()
