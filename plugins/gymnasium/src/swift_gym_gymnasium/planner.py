"""The oracle of the grid games: dynamic programming on Gymnasium's own transition table.

`env.unwrapped.P[state][action]` lists `(probability, next_state, reward, terminated)`, so the
planner sees exactly the dynamics the episode is drawn from, slippery ice and rain included.

The policy is lexicographically optimal over the steps left before the time limit: first the
highest expected return within those steps (the env's own rewards: for FrozenLake, whose only
reward is 1 at the goal, the probability of reaching it in time), then, among the actions that
reach it (within `TIE`), the fewest expected steps, then the lowest action number. Backward
induction over the horizon is exact for a finite limit; it stops early when a further step of
horizon changes no value (deterministic maps converge after their diameter), and the last
layer is the stationary policy for any longer horizon or for no limit at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

TIE = 1e-9
"""Expected returns closer than this count as equal (floating-point noise, not a preference)."""
CONVERGED = 1e-12
HORIZON_CAP = 1000
"""Layers computed at most (the configs bound max_episode_steps to the same)."""

Table = Mapping[int, Mapping[int, Sequence[tuple[float, Any, float, bool]]]]


@dataclass(frozen=True)
class Plan:
    """`layers[h - 1][state]`: the action to take with `h` steps left (h >= 1)."""

    layers: np.ndarray
    values: np.ndarray
    """Expected return of the last layer's policy from each state, over `len(layers)` steps."""

    def action(self, state: int, steps_left: int | None) -> int:
        """The best action in `state` with `steps_left` steps before the limit (None: no limit)."""
        depth = (
            len(self.layers) if steps_left is None else min(max(steps_left, 1), len(self.layers))
        )
        return int(self.layers[depth - 1][state])


def arrays(table: Table) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """P as dense (states, actions, outcomes) arrays: probability, next state, reward, goes on."""
    states, actions = len(table), len(table[0])
    width = max(len(table[s][a]) for s in range(states) for a in range(actions))
    prob = np.zeros((states, actions, width))
    nxt = np.zeros((states, actions, width), dtype=np.intp)
    reward = np.zeros((states, actions, width))
    goes_on = np.zeros((states, actions, width))
    for s in range(states):
        for a in range(actions):
            for k, (p, s2, r, terminated) in enumerate(table[s][a]):
                prob[s, a, k], nxt[s, a, k], reward[s, a, k] = p, int(s2), r
                goes_on[s, a, k] = 0.0 if terminated else 1.0
    return prob, nxt, reward, goes_on


def plan(table: Table, horizon: int | None) -> Plan:
    """The lexicographic policy for up to `horizon` steps (None: until it stops changing)."""
    prob, nxt, reward, goes_on = arrays(table)
    states = prob.shape[0]
    limit = HORIZON_CAP if horizon is None else min(horizon, HORIZON_CAP)
    expected_reward = (prob * reward).sum(axis=2)
    weights = prob * goes_on  # probability of each outcome that does not end the episode
    value, steps = np.zeros(states), np.zeros(states)
    rows = np.arange(states)
    layers = []
    for _ in range(limit):
        q_return = expected_reward + (weights * value[nxt]).sum(axis=2)
        q_steps = 1.0 + (weights * steps[nxt]).sum(axis=2)
        best = q_return.max(axis=1, keepdims=True)
        choice = np.where(q_return >= best - TIE, q_steps, np.inf).argmin(axis=1)
        new_value, new_steps = q_return[rows, choice], q_steps[rows, choice]
        layers.append(choice.astype(np.uint8))
        settled = np.abs(new_value - value).max() < CONVERGED
        settled = settled and np.abs(new_steps - steps).max() < CONVERGED
        value, steps = new_value, new_steps
        if settled:
            break
    return Plan(np.stack(layers), value)


_PLANS: dict[tuple[Any, ...], Plan] = {}
_PLANS_KEPT = 32


def plan_for(env: Any) -> Plan:
    """The oracle's plan of `env` (a `TabularEnv`), shared by every env of its config.

    The plan depends only on the id, the Gymnasium arguments and the time limit, so it is
    computed once per process for each (a few ms; Taxi's 500 states included).
    """
    key = (env.gym_id, tuple(sorted(env.gym_kwargs().items())), env.steps_limit)
    found = _PLANS.get(key)
    if found is None:
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.pop(next(iter(_PLANS)))
        found = _PLANS[key] = plan(env.unwrapped.P, env.steps_limit)
    return found
