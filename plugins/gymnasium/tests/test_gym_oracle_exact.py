"""The README's claims about the oracle: checked exhaustively, or by an independent computation."""

from __future__ import annotations

import pytest

from swift_gym_gymnasium import FrozenLake8x8Env, FrozenLakeEnv, TaxiEnv
from swift_gym_gymnasium.planner import plan_for


def optimal_values(table, horizon):
    """Plain-Python finite-horizon value iteration: the best expected return within `horizon`."""
    value = [0.0] * len(table)
    for _ in range(horizon):
        value = [
            max(
                sum(p * (r + (0.0 if done else value[nxt])) for p, nxt, r, done in outcomes)
                for outcomes in table[state].values()
            )
            for state in range(len(table))
        ]
    return value


def success_of_oracle(env, start, horizon):
    """Probability that the oracle's policy reaches the goal within `horizon` moves, computed by
    pushing the state distribution forward (no sampling)."""
    policy, table = plan_for(env), env.unwrapped.P
    spread, won = {start: 1.0}, 0.0
    for moves_left in range(horizon, 0, -1):
        ahead: dict[int, float] = {}
        for state, weight in spread.items():
            for p, nxt, reward, done in table[state][policy.action(state, moves_left)]:
                if done:
                    won += weight * p * reward
                else:
                    ahead[nxt] = ahead.get(nxt, 0.0) + weight * p
        spread = ahead
    return won


@pytest.mark.parametrize(("cls", "horizon"), [(FrozenLakeEnv, 100), (FrozenLake8x8Env, 200)])
def test_on_slippery_ice_the_oracle_reaches_the_goal_as_often_as_possible(cls, horizon):
    env = cls({"seed": 0})
    best = optimal_values(env.unwrapped.P, horizon)[0]
    assert success_of_oracle(env, 0, horizon) == pytest.approx(best, abs=1e-9)
    assert 0.7 < best < 0.95  # the README's 0.744 and 0.913: below 1, as slippery ice allows


async def test_the_taxi_oracle_delivers_from_every_start_by_a_shortest_route():
    """All 300 start states of Taxi-v4 (5x5 cells, 4 passenger stops, 3 other destinations)."""
    env = TaxiEnv({"seed": 0})
    await env.reset()
    starts = [s for s, p in enumerate(env.unwrapped.initial_state_distrib) if p > 0]
    assert len(starts) == 300
    shortest = shortest_moves(env.unwrapped.P)
    for start in starts:
        await env.reset()
        env.unwrapped.s = env.state = start  # the oracle reads the state the env is in
        moves, done, info = 0, False, {}
        while not done:
            _, _, done, info = await env.step(
                [{"role": "assistant", "content": env.oracle_reply()}]
            )
            moves += 1
        assert (info["status"], moves) == ("delivered", shortest[start]), start


def shortest_moves(table):
    """Moves from each state to delivery in Taxi's deterministic table (backward search)."""
    into: dict[int, list[int]] = {}
    ends = set()
    for state, actions in table.items():
        for ((_, nxt, _, terminated),) in actions.values():
            if terminated:
                ends.add(state)
            else:
                into.setdefault(nxt, []).append(state)
    distance = dict.fromkeys(ends, 1)
    frontier = list(ends)
    while frontier:
        reached = []
        for state in frontier:
            for earlier in into.get(state, []):
                if earlier not in distance:
                    distance[earlier] = distance[state] + 1
                    reached.append(earlier)
        frontier = reached
    return distance
