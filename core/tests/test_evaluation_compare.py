"""Differences between runs and learning curves: the numbers the report shows, checked against
published values and direct computation (unit tests, no processes)."""

from __future__ import annotations

import statistics

import pytest

from swift_gym.evaluation.compare import differences, mean_difference, rate_difference
from swift_gym.evaluation.curves import STEP, TIME, axis_of, curve, run_curves
from swift_gym.evaluation.stats import summarize


def records(successes: int, n: int, rewards: list[float] | None = None, **extra) -> list[dict]:
    rewards = rewards or [1.0 if k < successes else 0.0 for k in range(n)]
    return [
        {
            "turns": [],
            "success": k < successes,
            "status": "goal" if k < successes else "hole",
            "total_reward": rewards[k],
            "num_turns": 1,
            **extra,
        }
        for k in range(n)
    ]


def test_rate_difference_is_newcombes_method_10() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, table II: 56/70 - 48/80 = 0.2000,
    # hybrid score interval 0.0524 to 0.3339.
    diff = rate_difference(summarize(records(48, 80)), summarize(records(56, 70)))
    assert diff.difference == pytest.approx(0.2)
    assert (round(diff.low, 4), round(diff.high, 4)) == (0.0524, 0.3339)
    assert diff.significant


def test_rate_difference_stays_inside_minus_one_to_one_at_the_edges() -> None:
    diff = rate_difference(summarize(records(0, 10)), summarize(records(10, 10)))
    assert diff.difference == 1.0
    assert 0 < diff.low < diff.high <= 1.0
    assert diff.significant


def test_equal_runs_differ_by_nothing_significant() -> None:
    a = summarize(records(30, 60))
    for diff in differences(a, summarize(records(30, 60))):
        assert diff.difference == 0 and diff.low < 0 < diff.high
        assert not diff.significant


def test_mean_difference_is_welchs_interval() -> None:
    left = [0.1, 0.4, 0.35, 0.8, 0.0, 0.55, 0.2]
    right = [0.9, 0.5, 0.7, 1.0, 0.65, 0.4, 0.95, 0.8]
    diff = mean_difference(summarize(records(0, 7, left)), summarize(records(0, 8, right)))
    d = statistics.mean(right) - statistics.mean(left)
    assert diff.difference == pytest.approx(d)
    # scipy 1.17: ttest_ind(right, left, equal_var=False).confidence_interval(), 11.37 degrees
    # of freedom (the normal 1.96 in place of t gave 0.143 to 0.647)
    assert diff.low == pytest.approx(0.11262873435433429, rel=1e-12)
    assert diff.high == pytest.approx(0.6766569799313797, rel=1e-12)
    assert diff.significant


def test_one_episode_cannot_tell_a_mean_difference() -> None:
    diff = mean_difference(summarize(records(1, 1)), summarize(records(0, 5)))
    assert not diff.known and not diff.significant
    assert diff.as_dict()["ci95"] == [None, None]


def training(step: int | None, time: float, **record) -> dict:
    where = {"step": step, "time": time, "sequence": 0, "host": "h", "pid": 1}
    return {"training": where, **record}


def test_the_axis_is_the_step_when_every_record_has_one_else_the_time() -> None:
    with_steps = [training(1, 10.0), training(2, 11.0)]
    assert axis_of(with_steps) == STEP
    assert axis_of([training(None, 10.0), training(2, 11.0)]) == TIME
    assert axis_of(records(1, 2)) is None  # eval records: no curve
    assert run_curves(records(1, 2)) == []


def test_few_steps_are_a_point_each_many_are_binned() -> None:
    few = [training(s, 0.0, **r) for s in range(5) for r in records(s, 4)]
    points = curve("all", few, STEP, bins=20).points
    assert [p.x for p in points] == [0, 1, 2, 3, 4]
    assert [p.summary["success_rate"] for p in points] == [0, 0.25, 0.5, 0.75, 1.0]
    many = [training(s, 0.0, **r) for s in range(100) for r in records(1, 2)]
    binned = curve("all", many, STEP, bins=10).points
    assert len(binned) == 10
    assert sum(p.summary["episodes"] for p in binned) == 200
    # each point spans the whole steps its episodes were played at, not fractional bin edges
    assert [(p.low, p.high) for p in binned] == [(k, k + 9) for k in range(0, 100, 10)]


def test_time_counts_from_the_runs_first_episode_and_envs_get_their_own_curves() -> None:
    mixed = [
        training(None, 1000.0 + k, env=env, **r)
        for k in range(4)
        for env in ("a", "b")
        for r in records(1, 1)
    ]
    curves = run_curves(mixed)
    assert [c.name for c in curves] == ["all", "a", "b"]
    assert curves[0].axis == TIME
    assert [p.x for p in curves[1].points] == [0, 1, 2, 3]


def test_eval_results_compare_through_the_library() -> None:
    import swift_gym

    random = swift_gym.evaluate("frozen_lake", "random", episodes=60)
    oracle = swift_gym.evaluate("frozen_lake", "oracle", episodes=60)
    rate, reward = random.compare(oracle)
    assert rate.measure == "success rate" and rate.significant and rate.difference > 0
    assert rate.difference == pytest.approx(oracle.success_rate - random.success_rate)
    assert reward.significant
    (same, _) = oracle.compare(oracle)
    assert same.difference == 0 and not same.significant
