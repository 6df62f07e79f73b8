"""reasoning-gym adapter speed: swift-gym-reasoning-gym's episodes per second against
reasoning-gym called directly.

An episode is one question and one answer (the default, `attempts: 1`): through the adapter,
a new env per episode as ms-swift builds one per trajectory (`cls({"seed": n})`, `await
reset()`, `await step(reply)`, `await close()`: the item, the question, reading the reply's
`<answer>` tag, reasoning-gym's score, the info); directly, what a user of reasoning-gym alone
writes for the same item: `create_dataset(task, seed=..., size=...)` once per chunk of `size`
seeds (the adapter's own item stream, `items.locate`), `dataset[index]`, `extract_answer`,
`dataset.score_answer`. Seeds are new for every repeat, so neither side's item cache helps;
half the replies are the stored answer, half a wrong one. Checked afterwards: both sides scored
the same total. The sides take turns; the ratio is the median of each round's pair.

Needs reasoning-gym and swift-gym-reasoning-gym installed (`tox -e bench` runs it through
run.py; the `swift` env, which has every env package, runs the short form).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
from itertools import count
from typing import Any

import reasoning_gym
from bench_timing import goal, interleaved, median, paired_ratio, ratio_row, timed, write_json
from reasoning_gym.utils import extract_answer

import swift_gym
from swift_gym_reasoning_gym.items import clear_cache, locate

TASKS = ("chain_sum", "word_sorting", "basic_arithmetic", "sudoku")
"""Cheap to dear items: a sum of a few numbers, a word list, a few expressions, a puzzle."""
WRONG = "<answer>certainly not this</answer>"


def replies_for(task: str, seeds: range) -> list[str]:
    """The stored answer for even seeds, a wrong one for odd (made before timing)."""
    cls = swift_gym.get_env_class(f"reasoning_gym.{task}")
    config = cls.config_model.model_validate({})
    out = []
    for seed in seeds:
        if seed % 2:
            out.append(WRONG)
            continue
        dataset_seed, index = locate(config, seed)
        entry = reasoning_gym.create_dataset(task, seed=dataset_seed, size=config.size)[index]
        out.append(f"<answer>{entry['answer']}</answer>")
    return out


def play_direct(task: str, seeds: range, replies: list[str]) -> float:
    """reasoning-gym alone: the total score."""
    total, built = 0.0, {}
    cls = swift_gym.get_env_class(f"reasoning_gym.{task}")
    config = cls.config_model.model_validate({})
    for seed, reply in zip(seeds, replies, strict=True):
        dataset_seed, index = locate(config, seed)
        dataset = built.get(dataset_seed)
        if dataset is None:
            dataset = built[dataset_seed] = reasoning_gym.create_dataset(
                task, seed=dataset_seed, size=config.size
            )
        entry = dataset[index]
        total += float(dataset.score_answer(extract_answer(reply), entry))
    return total


async def play_adapter(task: str, seeds: range, replies: list[str]) -> float:
    """The same episodes through the adapter: the total reward."""
    cls = swift_gym.get_env_class(f"reasoning_gym.{task}")
    total = 0.0
    for seed, reply in zip(seeds, replies, strict=True):
        env = cls({"seed": seed})
        await env.reset()
        _, reward, _, _ = await env.step([{"role": "assistant", "content": reply}])
        await env.close()
        total += reward
    return total


WHY = (
    "each episode makes two calls into reasoning-gym on a worker thread (the item at reset, the "
    "score at step: asyncio.to_thread, about 50 to 100 us each here), so that a slow item or "
    "scorer holds up only its own episode and never the rollout loop; on a cheap task that hop "
    "costs more than reasoning-gym's own work, on a dear one it disappears"
)


def measure(episodes: int, repeats: int) -> dict[str, Any]:
    rows, goals = [], []
    for task in TASKS:
        fresh = count(1)  # a new block of seeds for every run: no item cache hits

        def seeds() -> range:
            start = next(fresh) * 100_000  # noqa: B023
            return range(start, start + episodes)

        check = seeds()
        replies = replies_for(task, check)
        clear_cache()
        direct = play_direct(task, check, replies)
        adapter = asyncio.run(play_adapter(task, check, replies))
        if abs(direct - adapter) > 1e-9 or direct < episodes / 2 - 1e-9:
            raise AssertionError(f"{task}: the sides scored {direct} and {adapter}")

        def run_direct(task: str = task) -> float:
            block = seeds()
            answers = replies_for(task, block)
            gc.collect()
            return episodes / timed(lambda: play_direct(task, block, answers))

        def run_adapter(task: str = task) -> float:
            block = seeds()
            answers = replies_for(task, block)
            clear_cache()
            gc.collect()
            return episodes / timed(lambda: asyncio.run(play_adapter(task, block, answers)))

        results = interleaved({"adapter": run_adapter, "reasoning_gym": run_direct}, repeats)
        ours, base = median(results["adapter"]), median(results["reasoning_gym"])
        paired = paired_ratio(results["adapter"], results["reasoning_gym"])
        rows.append({**ratio_row(f"episodes/s, {task}", ours, base, "/s"), "ratio": paired})
        goals.append(
            goal(f">= 0.9x reasoning-gym directly: {task}", f"{paired:.2f}x", paired >= 0.9, WHY)
        )
    return {
        "benchmark": "reasoning-gym adapter speed",
        "repeats": repeats,
        "detail": f"{episodes} one-answer episodes per repeat and side (a new env each, new "
        f"seeds each repeat), median of {repeats} repeats, the sides in turns",
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.episodes, args.repeats))


if __name__ == "__main__":
    main()
