"""How two runs differ, and whether the difference is more than chance.

Built on the intervals every summary already carries (`stats`): a success rate's 95% Wilson
interval and a mean reward's 95% Student's t interval with its standard error.

- Success rates: Newcombe's hybrid score interval of the difference of two independent rates
  (his method 10), made from the two Wilson intervals. Unlike "do the intervals overlap", which
  misses real differences, it has close to 95% coverage, and unlike the plain Wald interval it
  stays sensible near 0 and 1.
- Mean rewards: Welch's interval of a difference of means: the summaries' standard errors, and
  Student's t with the Welch-Satterthwaite degrees of freedom (a few episodes a side widen it).

A difference is significant when its 95% interval leaves out 0. With several runs each is
compared with the first (the baseline); nothing corrects for the number of comparisons.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .stats import t95
from .student_t import t_quantile


@dataclass(frozen=True)
class Difference:
    """`other - baseline` of one measure, with its 95% interval (NaN: cannot be told)."""

    measure: str
    baseline: float
    other: float
    difference: float
    low: float
    high: float

    @property
    def known(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    @property
    def significant(self) -> bool:
        """The 95% interval leaves out 0."""
        return self.known and (self.low > 0 or self.high < 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "baseline": _none(self.baseline),
            "other": _none(self.other),
            "difference": _none(self.difference),
            "ci95": [_none(self.low), _none(self.high)],
            "significant": self.significant,
        }


def rate_difference(baseline: Mapping[str, Any], other: Mapping[str, Any]) -> Difference:
    """Success rate of `other` minus `baseline` (two `stats.summarize` results)."""
    p1, p2 = baseline["success_rate"], other["success_rate"]
    (l1, u1), (l2, u2) = baseline["success_rate_ci95"], other["success_rate_ci95"]
    d = p2 - p1
    low = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return Difference("success rate", p1, p2, d, max(-1.0, low), min(1.0, high))


def mean_difference(baseline: Mapping[str, Any], other: Mapping[str, Any]) -> Difference:
    """Mean reward of `other` minus `baseline`: Welch's t interval, from the standard errors."""
    m1, m2 = baseline["mean_reward"], other["mean_reward"]
    d = m2 - m1
    if baseline["episodes"] < 2 or other["episodes"] < 2:
        return Difference("mean reward", m1, m2, d, math.nan, math.nan)
    n1, n2 = baseline["episodes"], other["episodes"]
    se1, se2 = _standard_error(baseline), _standard_error(other)
    scale = max(se1, se2)  # errors near 1e308 have squares beyond the floats: square them scaled
    if math.isfinite(se1) and math.isfinite(se2) and scale > 0:
        v1, v2 = (se1 / scale) ** 2, (se2 / scale) ** 2
        w1, w2 = v1 / (v1 + v2), v2 / (v1 + v2)
        freedom = 1 / (w1**2 / (n1 - 1) + w2**2 / (n2 - 1))  # Welch-Satterthwaite
        half = t_quantile(0.975, freedom) * scale * math.sqrt(v1 + v2)  # inf past the floats
    else:  # 0: no reward varied on either side; inf or NaN: an error beyond the floats
        half = se1 + se2
    return Difference("mean reward", m1, m2, d, d - half, d + half)


def differences(baseline: Mapping[str, Any], other: Mapping[str, Any]) -> list[Difference]:
    """Every measure compared: success rate, then mean reward."""
    return [rate_difference(baseline, other), mean_difference(baseline, other)]


def _standard_error(summary: Mapping[str, Any]) -> float:
    """The mean reward's standard error: the summary's own, else its interval's half-width (an
    interval clipped to the rewards seen would understate it)."""
    if summary.get("mean_reward_se") is not None:
        return float(summary["mean_reward_se"])
    low, high = summary["mean_reward_ci95"]
    return (high - low) / (2 * t95(summary["episodes"]))


def _none(value: float) -> float | None:
    return None if isinstance(value, float) and math.isnan(value) else value
