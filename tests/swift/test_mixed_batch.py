"""One batch of the `swift_gym` scheduler mixing rows of four env packages (FrozenLake, a
reasoning-gym task, Gymnasium's Taxi, a TextArena game), on both of ms-swift's multi-turn paths.

Each env is first played alone in this process with its oracle; the batch then replays those
replies through ms-swift's own scheduler machinery (a scripted engine, see conftest.py). Each
row's rollout_infos must carry exactly its own env's rewards and infos: nothing leaks between
rows of different envs, and each env's reward reaches ms-swift as the env gave it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import swift_gym

ROWS = [
    {"name": "frozen_lake", "seed": 3},
    {"name": "reasoning_gym.chain_sum", "seed": 4},
    {"name": "gymnasium.Taxi-v4", "seed": 5},
    {"name": "textarena.GuessTheNumber-v0", "seed": 6},
]
MAX_TURNS = 30


def plain(value: Any) -> Any:
    """As JSON carries it (tuples become lists), to compare what the scheduler kept."""
    return json.loads(json.dumps(value))


async def play_alone(env_config: dict[str, Any]) -> dict[str, Any]:
    """The env played alone to its end with its oracle: the replies and what it gave back."""
    env = swift_gym.make(env_config)
    _, reset_info, _ = await env.reset()
    replies, rewards, infos, done = [], [], [], False
    while not done and len(replies) < MAX_TURNS:
        replies.append(env.oracle_reply())
        _, reward, done, info = await env.step([{"role": "assistant", "content": replies[-1]}])
        rewards.append(reward)
        infos.append(info)
    await env.close()
    assert done, f"the oracle did not finish {env_config} in {MAX_TURNS} turns"
    return {"replies": replies, "rewards": rewards, "infos": infos, "reset_info": reset_info}


def test_one_batch_of_four_env_packages_keeps_each_rows_rewards_and_infos(rows, run_rollout):
    alone = [asyncio.run(play_alone(config)) for config in ROWS]
    by_uuid = {f"trajectory-{index}": played["replies"] for index, played in enumerate(alone)}

    def policy(request, turn):
        return by_uuid[request.uuid][turn]

    outputs = run_rollout("swift_gym", policy, rows(*ROWS), MAX_TURNS)
    assert len(outputs) == len(ROWS)
    for config, played, output in zip(ROWS, alone, outputs, strict=True):
        infos = output.rollout_infos
        assert infos["env_name"] == config["name"] and infos["env_error"] is None, infos
        assert infos["gym_done"] is True
        assert infos["num_turns"] == len(played["replies"])
        assert infos["step_rewards"] == played["rewards"]
        assert infos["total_reward"] == sum(played["rewards"])
        assert plain(infos["step_infos"]) == plain(played["infos"])
        assert plain(infos["reset_info"]) == plain(played["reset_info"])
        assert infos["env_metrics"]["success"] == 1.0
    totals = [output.rollout_infos["total_reward"] for output in outputs]
    assert totals[0] == totals[1] == totals[3] == 1.0  # goal, correct answer, number guessed
    assert totals[2] == 20 - (len(alone[2]["replies"]) - 1)  # Taxi: -1 a move, +20 delivered
