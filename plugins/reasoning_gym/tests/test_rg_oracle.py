"""The oracle replays each item's stored answer: reasoning-gym scores it 1.0, for every task that
stores one (checked here on three seeds each; the README says which tasks have none)."""

from __future__ import annotations

import pytest

import swift_gym
from swift_gym_reasoning_gym.ids import TASKS, VERIFIER_SCORED

EXACT = [task for task in TASKS if task not in VERIFIER_SCORED]
MIXED = {
    "datasets": [
        {"name": "chain_sum", "weight": 1.0, "config": {}},
        {"name": "word_sorting", "weight": 2.0, "config": {"max_words": 5}},
        {"name": "graph_color", "weight": 1.0, "config": {}},
    ]
}


async def play_oracle(name, seed, **config):
    env = swift_gym.make({"name": name, "seed": seed, **config})
    await env.reset()
    reply = env.oracle_reply()
    _, reward, done, info = await env.step([{"role": "assistant", "content": reply}])
    return reward, done, info


@pytest.mark.parametrize("task", EXACT)
async def test_the_stored_answer_scores_one(task):
    config = {"datasets": MIXED["datasets"][:2]} if task == "composite" else {}
    for seed in (0, 1, 2):
        reward, done, info = await play_oracle(f"reasoning_gym.{task}", seed, **config)
        assert (reward, done, info["status"]) == (1.0, True, "correct"), (seed, info)


async def test_a_composite_with_a_verifier_scored_task_has_an_oracle_only_where_stored():
    with_oracle = without = 0
    for seed in range(12):
        try:
            reward, _, _ = await play_oracle("reasoning_gym.composite", seed, **MIXED)
        except NotImplementedError as error:
            assert "stores no answer" in str(error)
            without += 1
        else:
            assert reward == 1.0
            with_oracle += 1
    assert with_oracle and without
