"""Same seed and replies, same episode, for every env; other seeds, other episodes."""

from __future__ import annotations

import random

import pytest

import swift_gym
from swift_gym_gymnasium.ids import ENV_NAMES

CONFIGS = {
    "gymnasium.FrozenLake-v1": {},
    "gymnasium.FrozenLake8x8-v1": {},
    "gymnasium.Taxi-v4": {"is_rainy": True, "fickle_passenger": True},
    "gymnasium.CliffWalking-v1": {},
    "gymnasium.CliffWalkingSlippery-v1": {},
    "gymnasium.Blackjack-v1": {},
}


async def transcript(name, seed, replies, resets=1):
    """Every observation, reward and status of `resets` episodes on one env."""
    env = swift_gym.make(name, seed=seed, **CONFIGS[name])
    seen = []
    for _ in range(resets):
        observation, info, _ = await env.reset()
        seen.append((observation, info["status"]))
        for reply in replies:
            observation, reward, done, info = await env.step(
                [{"role": "assistant", "content": reply}]
            )
            seen.append((observation, reward, info["status"]))
            if done:
                break
    await env.close()
    return seen


def replies_for(name, count=60):
    actions = swift_gym.get_env_class(name).actions
    rng = random.Random(name)
    return [f"<action>{rng.choice(actions)}</action>" for _ in range(count)]


def test_every_env_is_covered():
    assert set(CONFIGS) == set(ENV_NAMES)


@pytest.mark.parametrize("name", ENV_NAMES)
async def test_the_same_seed_replays_the_same_episode(name):
    replies = replies_for(name)
    first = await transcript(name, 11, replies)
    assert await transcript(name, 11, replies) == first
    again = await transcript(name, 11, replies, resets=2)  # reset reseeds: episode 2 = episode 1
    assert again[: len(first)] == again[len(first) :] == first


@pytest.mark.parametrize("name", [n for n in ENV_NAMES if n != "gymnasium.CliffWalking-v1"])
async def test_other_seeds_give_other_episodes(name):
    replies = replies_for(name)
    episodes = {str(await transcript(name, seed, replies)) for seed in range(6)}
    assert len(episodes) > 1  # CliffWalking-v1 alone has no randomness at all
