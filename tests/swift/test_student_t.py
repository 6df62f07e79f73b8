"""The core's Student's t quantiles and the intervals built on them, against scipy's.

Here because this env has scipy (ms-swift depends on it) and the core must not: the core computes
its quantiles itself (swift_gym.evaluation.student_t). Unit-sized, no processes.
"""

from __future__ import annotations

import math
import random

import pytest

from swift_gym.evaluation.compare import mean_difference
from swift_gym.evaluation.stats import mean_ci, summarize
from swift_gym.evaluation.student_t import t_quantile

scipy_stats = pytest.importorskip("scipy.stats")

CONFIDENCES = (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 0.9999, 1 - 1e-6, 1 - 1e-10)
"""Two-sided confidences; each is checked on both sides, p = (1 + c) / 2 and (1 - c) / 2."""
FREEDOMS = (*range(1, 201), 250, 500, 999, 1000, 2000, 9999, 10_000, 10**5, 10**6, 10**9)
"""1 to 200 one by one (the t tables' range), then large: the continued fraction's end and the
series' start (10,000), and far beyond."""


def test_t_quantiles_agree_with_scipy() -> None:
    worst = 0.0
    for df in (*FREEDOMS, 0.5, 2.5, 30.25):  # a fractional df is what Welch's intervals ask
        for confidence in CONFIDENCES:
            for p in ((1 + confidence) / 2, (1 - confidence) / 2):
                mine, theirs = t_quantile(p, df), float(scipy_stats.t.ppf(p, df))
                assert mine == pytest.approx(theirs, rel=1e-11), (df, p)
                worst = max(worst, abs(mine - theirs) / abs(theirs))
    assert t_quantile(0.5, 7) == 0.0
    assert t_quantile(0.975, math.inf) == pytest.approx(float(scipy_stats.norm.ppf(0.975)))
    assert worst < 1e-11


def test_mean_intervals_agree_with_scipy() -> None:
    rng = random.Random(36)
    for n in (2, 3, 5, 10, 30, 200, 2000):
        values = [rng.gauss(0.3, 1.0) for _ in range(n)]
        centre, low, high = mean_ci(values)
        theirs = scipy_stats.t.interval(
            0.95, n - 1, loc=centre, scale=float(scipy_stats.sem(values))
        )
        assert (low, high) == pytest.approx(theirs, rel=1e-11, abs=1e-13), n
    # five episodes: the interval is 2.776 standard errors each side, not 1.96 (29% narrower)
    centre, low, high = mean_ci([0.0, 1.0, 1.0, 0.0, 1.0])
    assert (high - centre) / math.sqrt(0.3 / 5) == pytest.approx(2.7764451051977934, rel=1e-12)


def test_the_difference_of_two_means_is_scipys_welch_interval() -> None:
    rng = random.Random(7)
    for n1, n2 in ((3, 4), (5, 40), (12, 9), (100, 3)):
        left = [rng.random() for _ in range(n1)]
        right = [rng.random() * 2 for _ in range(n2)]
        diff = mean_difference(summarize(_records(left)), summarize(_records(right)))
        welch = scipy_stats.ttest_ind(right, left, equal_var=False).confidence_interval(0.95)
        assert (diff.low, diff.high) == pytest.approx(tuple(welch), rel=1e-10), (n1, n2)


def _records(rewards: list[float]) -> list[dict]:
    return [{"total_reward": reward, "status": "done", "turns": []} for reward in rewards]
