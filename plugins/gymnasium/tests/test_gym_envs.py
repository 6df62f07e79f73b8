"""The rules of each env: Gymnasium's dynamics and rewards, the statuses, invalid replies."""

from __future__ import annotations

from collections import deque

import gymnasium
import pytest

import swift_gym
from swift_gym_gymnasium import (
    BlackjackEnv,
    CliffWalkingEnv,
    CliffWalkingSlipperyEnv,
    FrozenLake8x8Env,
    FrozenLakeEnv,
    TaxiEnv,
)


def say(text):
    return [{"role": "assistant", "content": text}]


async def play_oracle(env, limit=1000):
    """Plays the oracle to the end: (total reward, moves, last info)."""
    await env.reset()
    total, moves, done, info = 0.0, 0, False, {}
    while not done and moves < limit:
        _, reward, done, info = await env.step(say(env.oracle_reply()))
        total, moves = total + reward, moves + 1
    return total, moves, info


def shortest_to_termination(table, start):
    """Breadth-first moves from `start` to a terminating transition of a deterministic P."""
    seen, queue = {start: 0}, deque([start])
    while queue:
        state = queue.popleft()
        for outcomes in table[state].values():
            ((_, nxt, _, terminated),) = outcomes
            if terminated:
                return seen[state] + 1
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    raise AssertionError("no way to the end")


# Same as Gymnasium: the same seed and actions give the same states and rewards.

CASES = [
    (FrozenLakeEnv, {}, "FrozenLake-v1", {}),
    (FrozenLakeEnv, {"map_name": "8x8"}, "FrozenLake-v1", {"map_name": "8x8"}),
    (FrozenLake8x8Env, {"is_slippery": False}, "FrozenLake8x8-v1", {"is_slippery": False}),
    (TaxiEnv, {"is_rainy": True}, "Taxi-v4", {"is_rainy": True}),
    (CliffWalkingSlipperyEnv, {}, "CliffWalkingSlippery-v1", {}),
    (BlackjackEnv, {}, "Blackjack-v1", {}),
]


@pytest.mark.parametrize(("cls", "config", "gym_id", "kwargs"), CASES)
async def test_an_episode_is_gymnasiums_own(cls, config, gym_id, kwargs):
    for seed in range(3):
        env = cls({**config, "seed": seed})
        direct = gymnasium.make(gym_id, **kwargs)
        state, _ = direct.reset(seed=seed)
        await env.reset()
        assert env.state == state
        for step in range(40):
            action = (step * 7 + seed) % len(cls.actions)
            state, reward, terminated, truncated, _ = direct.step(action)
            _, ours, done, info = await env.step(say(f"<action>{cls.actions[action]}</action>"))
            assert (env.state, ours, done) == (state, reward, terminated or truncated)
            assert info["gym_action"] == action
            if done:
                break


async def test_without_a_seed_gymnasium_draws_one():
    starts = set()
    for _ in range(20):
        env = TaxiEnv()
        await env.reset()
        starts.add(env.state)
    assert len(starts) > 1


# Replies.


async def test_invalid_replies_do_not_step_gymnasium():
    env = TaxiEnv({"seed": 0, "invalid_action_reward": -2.5})
    await env.reset()
    state = env.state
    for reply in ["", "south", "<action>fly</action>", None, 42, [], "<action>" * 10_000]:
        observation, reward, done, info = await env.step(say(reply))
        assert (reward, done, info["status"], info["step"]) == (-2.5, False, "invalid_action", 0)
        assert info["metrics"]["valid_action"] == 0.0
        assert env.state == state
        assert "No valid action found" in observation
    _, reward, done, info = await env.step(say("I go <action> SOUTH </action>"))
    assert info["status"] != "invalid_action" and info["step"] == 1


@pytest.mark.parametrize(
    ("mode", "reply", "action"),
    [
        ("first_tag", "<action>hit</action><action>stick</action>", "hit"),
        ("last_tag", "<action>hit</action><action>stick</action>", "stick"),
        ("single_tag", "<action>hit</action><action>stick</action>", None),
        ("single_tag", "<action>Hit</action>", "hit"),
        ("first_tag", "<action>hitt</action><action>stick</action>", None),
    ],
)
async def test_action_parsing_modes(mode, reply, action):
    env = BlackjackEnv({"seed": 0, "action_parsing": mode})
    await env.reset()
    _, _, _, info = await env.step(say(reply))
    assert info["action"] == action


async def test_a_step_after_the_end_is_refused():
    env = CliffWalkingEnv({"seed": 0})
    await play_oracle(env)
    observation, reward, done, info = await env.step(say("<action>up</action>"))
    assert (reward, done, info["status"]) == (0.0, True, "episode_over")
    assert "episode is over" in observation
    with pytest.raises(RuntimeError, match="reset"):
        env.oracle_reply()


# Each game.


async def test_frozen_lake_statuses_and_time_limit():
    env = FrozenLakeEnv({"seed": 0, "is_slippery": False, "max_episode_steps": 3})
    await env.reset()
    _, _, done, info = await env.step(say("<action>right</action>"))
    assert (done, info["status"], info["position"]) == (False, "ok", [0, 1])
    _, reward, done, info = await env.step(say("<action>down</action>"))
    assert (reward, done, info["status"]) == (0.0, True, "hole")
    await env.reset()
    for _ in range(2):
        observation, _, done, info = await env.step(say("<action>left</action>"))
        assert not done and info["metrics"]["moved"] == 0.0
        assert observation.startswith("You tried to move left, but the edge stops you")
    observation, _, done, info = await env.step(say("<action>left</action>"))
    assert (done, info["status"], info["truncated"]) == (True, "time_limit", True)
    assert "time limit of 3 moves" in observation


@pytest.mark.parametrize(("cls", "moves"), [(FrozenLakeEnv, 6), (FrozenLake8x8Env, 14)])
async def test_frozen_lake_oracle_on_dry_ice_is_a_shortest_path(cls, moves):
    env = cls({"seed": 0, "is_slippery": False})
    total, taken, info = await play_oracle(env)
    assert (total, taken, info["status"], info["metrics"]["success"]) == (1.0, moves, "goal", 1.0)


async def test_frozen_lake_oracle_on_slippery_ice_beats_the_dry_path():
    """The slip-aware plan reaches the goal more often than walking the dry shortest path."""
    wins_planned = wins_naive = 0
    dry_path = ["down", "down", "right", "right", "down", "right"]  # a shortest dry path
    for seed in range(150):
        planned = FrozenLakeEnv({"seed": seed})
        wins_planned += (await play_oracle(planned))[0] > 0
        naive = FrozenLakeEnv({"seed": seed})
        await naive.reset()
        done, reward, k = False, 0.0, 0
        while not done:
            _, reward, done, _ = await naive.step(say(f"<action>{dry_path[k % 6]}</action>"))
            k += 1
        wins_naive += reward > 0
    assert wins_planned > 0.6 * 150 > 2 * wins_naive


async def test_cliff_costs_100_and_sends_back_without_ending():
    env = CliffWalkingEnv({"seed": 0})
    await env.reset()
    await env.step(say("<action>up</action>"))
    await env.step(say("<action>right</action>"))
    observation, reward, done, info = await env.step(say("<action>down</action>"))
    assert (reward, done, info["status"], info["position"]) == (-100.0, False, "cliff", [3, 0])
    assert info["metrics"]["fell"] == 1.0
    assert observation.startswith(
        "You moved down, onto the cliff (-100). You are back at the start."
    )


async def test_a_slip_onto_the_cliff_is_told_as_a_slip():
    """From the start, up is safe: on slippery ground only a slip right goes over the edge."""
    told = set()
    for seed in range(30):
        env = CliffWalkingSlipperyEnv({"seed": seed})
        await env.reset()
        observation, reward, _, info = await env.step(say("<action>up</action>"))
        if info["status"] == "cliff":
            assert reward == -100.0
            assert observation.startswith("You tried to move up, but slipped onto the cliff")
        told.add(observation.split(".")[0])
    assert len(told) == 3  # moved up, slipped onto the cliff, did not move (a slip left)


async def test_cliff_oracle_walks_the_edge_and_the_slippery_one_gets_there():
    total, moves, info = await play_oracle(CliffWalkingEnv({"seed": 0}))
    assert (total, moves, info["status"]) == (-13.0, 13, "goal")
    for seed in range(5):
        total, moves, info = await play_oracle(CliffWalkingSlipperyEnv({"seed": seed}))
        assert info["status"] == "goal" and moves > 13


async def test_taxi_oracle_delivers_by_a_shortest_route():
    for seed in range(20):
        env = TaxiEnv({"seed": seed})
        await env.reset()
        needed = shortest_to_termination(env.unwrapped.P, env.state)
        total, moves, info = await play_oracle(env)
        assert (moves, info["status"], total) == (needed, "delivered", 20.0 - (needed - 1))


async def test_taxi_statuses():
    env = TaxiEnv({"seed": 1})  # the taxi at (2, 2), the passenger at B, destination R
    await env.reset()
    _, reward, _, info = await env.step(say("<action>pickup</action>"))
    assert (reward, info["status"], info["passenger"]) == (-10.0, "illegal_pickup", "B")
    _, reward, _, info = await env.step(say("<action>dropoff</action>"))
    assert (reward, info["status"]) == (-10.0, "illegal_dropoff")
    observation, _, _, info = await env.step(say("<action>west</action>"))
    assert info["position"] == [2, 1] and "Destination: stop R." in observation


async def test_taxi_oracle_with_a_fickle_passenger_still_delivers():
    for seed in range(10):
        env = TaxiEnv({"seed": seed, "fickle_passenger": True, "fickle_probability": 1.0})
        _, _, info = await play_oracle(env)
        assert info["status"] == "delivered"


async def test_blackjack_statuses_and_the_dealers_hand():
    seen = set()
    for seed in range(60):
        env = BlackjackEnv({"seed": seed})
        await env.reset()
        reply = "<action>hit</action>" if seed % 2 else "<action>stick</action>"
        observation, reward, done, info = await env.step(say(reply))
        seen.add(info["status"])
        if info["status"] in ("win", "draw", "loss"):
            assert done and "The dealer's cards" in observation and info["dealer_cards"]
            assert info["metrics"]["success"] == (1.0 if reward > 0 else 0.0)
        elif info["status"] == "bust":
            assert (done, reward) == (True, -1.0)
    assert {"win", "loss", "ok"} <= seen


async def test_blackjack_oracle_plays_basic_strategy_and_wins_about_as_often():
    wins = 0
    for seed in range(300):
        _, _, info = await play_oracle(BlackjackEnv({"seed": seed}))
        wins += info["metrics"]["success"] == 1.0
    assert 0.36 < wins / 300 < 0.50  # basic strategy wins about 43% of hands


def test_the_names_resolve_to_these_classes():
    for name, cls in [
        ("gymnasium.FrozenLake-v1", FrozenLakeEnv),
        ("gymnasium.FrozenLake8x8-v1", FrozenLake8x8Env),
        ("gymnasium.Taxi-v4", TaxiEnv),
        ("gymnasium.CliffWalking-v1", CliffWalkingEnv),
        ("gymnasium.CliffWalkingSlippery-v1", CliffWalkingSlipperyEnv),
        ("gymnasium.Blackjack-v1", BlackjackEnv),
    ]:
        assert swift_gym.get_env_class(name) is cls
        assert f"gymnasium.{cls.gym_id}" == name
