"""The planner on small hand-made tables whose best policy is known."""

from __future__ import annotations

from swift_gym_gymnasium import plan

# State 0: action 0 gambles (goal with probability 0.5, else a hole), action 1 walks to state 1.
# State 1: both actions reach the goal for sure. Terminal states 2 (goal) and 3 (hole).
GAMBLE = {
    0: {0: [(0.5, 2, 1.0, True), (0.5, 3, 0.0, True)], 1: [(1.0, 1, 0.0, False)]},
    1: {0: [(1.0, 2, 1.0, True)], 1: [(1.0, 2, 1.0, True)]},
    2: {0: [(1.0, 2, 0.0, True)], 1: [(1.0, 2, 0.0, True)]},
    3: {0: [(1.0, 3, 0.0, True)], 1: [(1.0, 3, 0.0, True)]},
}


def test_the_steps_left_decide():
    policy = plan(GAMBLE, horizon=10)
    assert policy.action(0, steps_left=1) == 0  # one move left: only the gamble can win
    assert policy.action(0, steps_left=2) == 1  # two: the sure way
    assert policy.action(0, steps_left=None) == 1
    assert policy.values[0] == 1.0


# State 0: action 0 stays put, action 1 reaches the goal. Both are worth 1 without a step cost.
LOOP = {
    0: {0: [(1.0, 0, 0.0, False)], 1: [(1.0, 1, 1.0, True)]},
    1: {0: [(1.0, 1, 0.0, True)], 1: [(1.0, 1, 0.0, True)]},
}


def test_equal_returns_take_the_fewest_steps():
    policy = plan(LOOP, horizon=None)
    assert all(policy.action(0, left) == 1 for left in (1, 2, 50, None))


def test_it_stops_when_nothing_changes():
    assert len(plan(LOOP, horizon=None).layers) < 5
