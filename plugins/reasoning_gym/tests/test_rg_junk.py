"""No junk answer earns reward: every task, played through the env, answered with a battery of
non-answers on fixed seeds. A junk answer that scores well across the seeds is a hole (GRPO
finds one within steps): reasoning-gym 0.1.25 has three, corrected in holes.py, and a release
with a new one fails here, naming the task and the answer.

Two limits, for two kinds of junk. Nonsense (empty, `nan`, `None`, the question echoed, ...) is
no answer to any item, so it may average at most NONSENSE_LIMIT. Guesses (`0`, `1`, `True`,
`[]`, ...) are the right answer to some items: a binary task whose answer is False on 11 of
the 16 seeds (course_schedule) pays `False` 0.69, honestly. They may average at most
GUESS_LIMIT, above every base rate of 0.1.25 (that 0.69 is the highest) and below the holes
(0.88 for coin_flip's `0`, 1.0 for the others). The most nonsense earns is 0.16 (rotate_matrix's
question echoed: its scorer pays an answer that holds the stored one a share).

The scan runs once, in a child process with PYTHONHASHSEED=0: three tasks make items that
depend on string hashing (README), and the result must not.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from swift_gym_reasoning_gym.ids import TASKS

NONSENSE = [
    "",
    " \n\t ",
    "nan",
    "NaN",
    "-nan",
    "nan+nanj",
    "inf",
    "-inf",
    "Infinity",
    "null",
    "undefined",
    "x" * 19_000,
    "{question}",
    "{}",
    "()",
    "''",
    "\u200b\ufeff\u202e",
    "\U0001f600" * 10,
    "\ud800",
    "\udfff\ud800x",
    "\x00",
    "?",
    "...",
    "<answer>",
    "1e999999",
    "-1e999999",
    "9" * 5000,
    "answer",
]
GUESSES = ["0", "1", "-1", "0.5", "yes", "no", "true", "True", "False", "None", "[]", "[[]]", "A"]
NONSENSE_LIMIT = 0.25
GUESS_LIMIT = 0.8
SEEDS = 16
FEW_SEEDS = {"knight_swap": 4}
"""Tasks that take about a second an item get fewer seeds (a hole scores on every seed)."""
COMPOSITE = {
    "datasets": [
        {"name": name, "weight": 1.0, "config": {}}
        for name in ("game_of_life_halting", "complex_arithmetic", "coin_flip", "chain_sum")
    ]
}
"""composite scores with its item's own task: the corrections must reach through it."""


async def scan_task(task: str) -> list[float]:
    """The mean score of each junk answer (NONSENSE, then GUESSES) over the task's seeds."""
    import swift_gym

    battery = NONSENSE + GUESSES
    totals = [0.0] * len(battery)
    seeds = FEW_SEEDS.get(task, SEEDS)
    extra = COMPOSITE if task == "composite" else {}
    for seed in range(seeds):
        env = swift_gym.make(
            {"name": f"reasoning_gym.{task}", "seed": seed, "attempts": 20, **extra}
        )
        question, _, _ = await env.reset()
        for index, junk in enumerate(battery):
            answer = junk.replace("{question}", question[:19_000])
            reply = [{"role": "assistant", "content": f"<answer>{answer}</answer>"}]
            _, _, done, info = await env.step(reply)
            totals[index] += info["score"]
            if done:
                await env.reset()
    return [total / seeds for total in totals]


def main() -> None:
    """The child: every task's means, as one JSON object."""

    async def scan_all() -> dict[str, list[float]]:
        return {task: await scan_task(task) for task in TASKS}

    print(json.dumps(asyncio.run(scan_all())))


@pytest.fixture(scope="module")
def means() -> dict[str, list[float]]:
    child = subprocess.run(
        [sys.executable, __file__],
        env={**os.environ, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    return json.loads(child.stdout.strip().splitlines()[-1])


def holes(task_means: list[float]) -> dict[str, float]:
    """The junk answers of one task that score above their limit, with their mean."""
    found = {}
    for index, junk in enumerate(NONSENSE + GUESSES):
        limit = NONSENSE_LIMIT if index < len(NONSENSE) else GUESS_LIMIT
        if task_means[index] > limit:
            found[repr(junk)[:40]] = round(task_means[index], 3)
    return found


def test_the_limits_tell_the_kinds_apart():
    assert 0.69 < GUESS_LIMIT < 0.88 and 0.16 < NONSENSE_LIMIT < GUESS_LIMIT
    assert holes([0.0] * len(NONSENSE) + [0.9] + [0.0] * (len(GUESSES) - 1)) == {"'0'": 0.9}
    assert holes([0.3] + [0.0] * (len(NONSENSE) + len(GUESSES) - 1)) == {"''": 0.3}


@pytest.mark.parametrize("task", list(TASKS))
def test_no_junk_answer_earns_reward(means, task):
    found = holes(means[task])
    assert not found, f"{task}: junk answers that score, mean over the seeds: {found}"


if __name__ == "__main__":
    main()
