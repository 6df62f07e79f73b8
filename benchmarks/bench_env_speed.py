"""Env speed: FrozenLake episodes per second, swift-gym's env against the baseline env.

An episode is what ms-swift does per trajectory: build the env from the row's `env_config`
(ours through the factory ms-swift calls, so validation is paid), reset, step until done or
`MAX_TURNS`, close. Rows set `action_parsing: "upstream"` (the example's rule; the baseline
ignores the key) so both envs play exactly the same episodes, which is checked afterwards.

Two seed patterns: every episode on a new seed (no map is ever drawn twice: the worst case for
swift-gym, which precomputes per map what the baseline recomputes per step), and GRPO groups,
`GROUP` episodes per seed in a row (`--num_generations 8`), where swift-gym's map cache hits.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
from collections.abc import Callable
from typing import Any

from baseline_frozen_lake import BaselineFrozenLakeEnv
from bench_timing import goal, interleaved, median, ratio_row, timed, write_json
from bench_workload import MAX_TURNS, check_same_maps, random_replies, solver_replies

from swift_gym.ms_swift.factories import EnvFactory

GROUP = 8
NEW_MAP_WHY = (
    "every episode here is on a map no env has seen: besides drawing it (the same draws as the "
    "baseline), swift-gym validates the config and builds per map what keeps its steps cheap "
    "and its info complete (shortest-path distances for info['optimal_steps'] and the oracle, "
    "the move table, a render template), about 10 us that a 3 to 7 step episode does not pay "
    "back. The baseline validates nothing and reports less. With GRPO groups sharing a seed "
    "(the '8 episodes per seed' rows) swift-gym is faster than the baseline."
)
ROW = {"action_parsing": "upstream"}
"""Every row's env_config besides its seed."""
Episode = tuple[dict[str, Any], list[list[dict[str, str]]]]
Maker = Callable[[dict[str, Any]], Any]


def episodes(seeds: list[int], replies: Callable[[int], list[str]]) -> list[Episode]:
    """(env_config, the step() argument of each turn) per seed, built before timing."""
    return [
        (dict(ROW, seed=seed), [[{"role": "assistant", "content": text}] for text in replies(seed)])
        for seed in seeds
    ]


async def play(make: Maker, batch: list[Episode]) -> int:
    """Plays every episode of `batch`; returns the number of steps taken."""
    steps = 0
    for env_config, turns in batch:
        env = make(env_config)
        await env.reset(None)
        for messages in turns[:MAX_TURNS]:
            steps += 1
            if (await env.step(messages))[2]:
                break
        await env.close()
    return steps


def seed_list(start: int, count: int, group: int) -> list[int]:
    return [start + index // group for index in range(count)]


def throughput(makers: dict[str, Maker], replies: Any, count: int, group: int, repeats: int):
    """Median episodes/s of each maker; every call plays seeds no earlier call has played."""
    next_seed = dict.fromkeys(makers, 0)

    def run(name: str) -> Callable[[], float]:
        def once() -> float:
            seeds = seed_list(next_seed[name], count, group)
            next_seed[name] = seeds[-1] + 1
            batch = episodes(seeds, replies)
            gc.collect()
            return count / timed(lambda: asyncio.run(play(makers[name], batch)))

        return once

    results = interleaved({name: run(name) for name in makers}, repeats)
    return {name: median(values) for name, values in results.items()}, max(next_seed.values())


def check_same_episodes(makers: dict[str, Maker], replies: Any, seeds: int) -> None:
    """Same maps, same number of steps: or the ratio would compare different work."""
    check_same_maps(range(seeds))
    batch = episodes(list(range(seeds)), replies)
    counts = {name: asyncio.run(play(make, batch)) for name, make in makers.items()}
    if len(set(counts.values())) != 1:
        raise AssertionError(f"the envs played different episodes: steps {counts}")


def measure(count: int, repeats: int) -> dict[str, Any]:
    makers: dict[str, Maker] = {
        "swift-gym": EnvFactory("frozen_lake"),
        "baseline": BaselineFrozenLakeEnv,
    }
    rows, goals = [], []
    for label, replies in (
        ("solver's actions", solver_replies),
        ("random replies", random_replies),
    ):
        for group, seeds in ((1, "a new seed per episode"), (GROUP, f"{GROUP} episodes per seed")):
            medians, used = throughput(makers, replies, count, group, repeats)
            check_same_episodes(makers, replies, used)  # after timing: it fills the caches
            ratio = medians["swift-gym"] / medians["baseline"]
            measure_name = f"episodes/s, {label}, {seeds}"
            rows.append(ratio_row(measure_name, medians["swift-gym"], medians["baseline"], "/s"))
            why = NEW_MAP_WHY if group == 1 else ""
            goals.append(
                goal(f">= 0.9x baseline: {measure_name}", f"{ratio:.2f}x", ratio >= 0.9, why)
            )
    return {
        "benchmark": "env speed",
        "repeats": repeats,
        "detail": f"{count} episodes per repeat and env, 4x4 maps, at most {MAX_TURNS} turns; "
        f"median of {repeats} repeats",
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.episodes, args.repeats))


if __name__ == "__main__":
    main()
