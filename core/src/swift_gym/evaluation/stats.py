"""The numbers an eval run is judged by, from its trajectory records.

Failed episodes (status "error") count as episodes that did not succeed: a server that drops
half the requests should show up as a lower success rate, not vanish from the denominator.
Episodes not played (status "not_played": the run stopped before them, on Ctrl-C or because the
endpoint was down) are no results at all: they are counted apart and are not in any rate's n.

A mean reward's interval takes Student's t with n - 1 degrees of freedom (2.776 at 5 episodes,
2.010 at 50), not the normal 1.96, which is right only for many episodes; a success rate's is
Wilson's score interval, sensible at 0 and 1 where mean +- error is not.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .records import NOT_PLAYED
from .reward_ranges import clip
from .rollouts import RolloutTally
from .student_t import t_quantile

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the normal distribution (Wilson's interval of a rate uses it)."""
NOISE = 1e-12
"""A reward statistic closer to 0 than this share of the largest reward seen is 0: rounding
noise, finer than sums of such rewards resolve (a turn's 0.1 + 0.2 - 0.3 totals 5.55e-17)."""


def t95(n: int) -> float:
    """The two-sided 95% quantile for a mean of `n` >= 2 values: Student's t, n - 1 degrees of
    freedom (12.71 at 2 values, 2.776 at 5, 1.984 at 100; 1.96 only in the limit)."""
    return t_quantile(0.975, n - 1)


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (Student's t; zero width below 2 values).

    Never overflows: the sums are taken of the values scaled by a power of two (exact, so the
    result is the plain formula's wherever that does not overflow). The mean of finite values
    is always finite; an interval bound beyond the largest float is -inf or inf.
    """
    centre, low, high, _ = mean_statistics(values)
    return (centre, low, high)


def standard_error(values: Sequence[float]) -> float:
    """The standard error of the mean of `values` (NaN below 2 values), without overflowing:
    taken apart from the interval, whose t-wide bounds may pass the largest float first."""
    return mean_statistics(values)[3]


def mean_statistics(values: Sequence[float]) -> tuple[float, float, float, float]:
    """`mean_ci`'s mean, low and high and `standard_error`'s error, from one pass of sums."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan, math.nan)
    centre, error, exponent = _scaled_mean_error(values)
    value = _unscaled(centre, exponent)
    if n < 2:
        return (value, value, value, math.nan)
    half = t95(n) * error
    return (
        value,
        _unscaled(centre - half, exponent),
        _unscaled(centre + half, exponent),
        _unscaled(error, exponent),
    )


def _scaled_mean_error(values: Sequence[float]) -> tuple[float, float, int]:
    """The mean and its standard error of `values` scaled by 2**-exponent, and the exponent."""
    exponent = _exponent(values)
    scaled = [math.ldexp(value, -exponent) for value in values]
    centre = _mean(scaled)
    n = len(scaled)
    if n < 2:
        return (centre, math.nan, exponent)
    variance = math.fsum((value - centre) ** 2 for value in scaled) / (n - 1)
    return (centre, math.sqrt(variance / n), exponent)


def mean(values: Sequence[float]) -> float:
    """The mean of `values` (NaN when there are none), without overflowing (see `mean_ci`)."""
    if not values:
        return math.nan
    exponent = _exponent(values)
    return _unscaled(_mean([math.ldexp(value, -exponent) for value in values]), exponent)


def _exponent(values: Sequence[float]) -> int:
    """The power of two that scales the largest finite magnitude into [0.5, 1)."""
    largest = max((abs(value) for value in values if math.isfinite(value)), default=0.0)
    return math.frexp(largest)[1]


def _mean(scaled: list[float]) -> float:
    """The mean of scaled values, kept between their least and greatest (rounding could push
    it past the greatest, which `_unscaled` might then overflow)."""
    try:
        centre = math.fsum(scaled) / len(scaled)
    except ValueError:  # inf and -inf among them (a caller's own records)
        return math.nan
    return min(max(centre, min(scaled)), max(scaled)) if math.isfinite(centre) else centre


def _unscaled(value: float, exponent: int) -> float:
    try:
        return math.ldexp(value, exponent)
    except OverflowError:  # only an interval bound: beyond the largest float
        return math.copysign(math.inf, value)


def wilson_ci(successes: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a rate: sensible at 0 and at 1, unlike mean +- error."""
    if n == 0:
        return (math.nan, math.nan)
    rate = successes / n
    denominator = 1 + Z95**2 / n
    centre = (rate + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(rate * (1 - rate) / n + Z95**2 / (4 * n * n)) / denominator
    # At no success the lower bound is 0 exactly, at every success the upper bound is 1: the
    # sum of centre and half-width leaves float noise there (5.6e-17, 0.9999999999999999).
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return (low, high)


def summarize(records: Iterable[Mapping[str, Any]], unrecorded: int = 0) -> dict[str, Any]:
    """Success rate, reward, turns, invalid actions, statuses and errors of `records`;
    `unrecorded` more episodes were not played and have no record. `rollouts`: pass@k and the
    per-seed spread where the records are several rollouts per seed (`rollouts`), else None."""
    rewards: list[float] = []
    turns: list[float] = []
    successes = 0
    statuses: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    judged = invalid = 0
    rollouts = RolloutTally()
    for record in records:
        rollouts.add(record)
        if record.get("status") == NOT_PLAYED:
            unrecorded += 1
            continue
        rewards.append(float(record.get("total_reward") or 0.0))
        turns.append(float(record.get("num_turns") or 0))
        successes += bool(record.get("success"))
        statuses[str(record.get("status"))] += 1
        if record.get("error"):
            errors[str(record["error"])] += 1
        for turn in record.get("turns") or ():
            if turn.get("valid_action") is not None:
                judged += 1
                invalid += not turn["valid_action"]
    n = len(rewards)
    if unrecorded:
        statuses[NOT_PLAYED] = unrecorded
    reward, low, high, error = mean_statistics(rewards)
    seen = [value for value in rewards if math.isfinite(value)]
    if seen:  # a mean cannot leave the rewards' range: eval and report print the same interval
        low, high = clip([low, high], (min(seen), max(seen)))
        noise = NOISE * max(abs(value) for value in seen)
        reward, low, high, error = (
            0.0 if abs(value) <= noise else value for value in (reward, low, high, error)
        )
    rate_low, rate_high = wilson_ci(successes, n)
    return {
        "episodes": n,
        "not_played": unrecorded,
        "success_rate": successes / n if n else math.nan,
        "success_rate_ci95": [rate_low, rate_high],
        "mean_reward": reward,
        "mean_reward_ci95": [low, high],
        "mean_reward_se": error,
        "mean_turns": mean(turns),
        "invalid_action_rate": invalid / judged if judged else None,
        "statuses": dict(statuses.most_common()),
        "failed_episodes": sum(errors.values()),
        "errors": dict(errors.most_common(5)),
        "rollouts": rollouts.summary(),
    }


JSON_DIGITS = 12
"""Significant digits `json_safe` keeps of each float: more than any reader compares, fewer
than a double holds, so the rounding noise of a mean or a sum in the last few bits
(0.19999999999999998, 0.6000000000000001) prints as the number (0.2, 0.6)."""


def json_safe(summary: dict[str, Any]) -> dict[str, Any]:
    """NaN (no episodes) as null, since JSON has no NaN; floats to `JSON_DIGITS` digits."""

    def fix(value: Any) -> Any:
        if isinstance(value, float):
            if math.isnan(value):
                return None
            short = float(f"{value:.{JSON_DIGITS}g}")
            return short if math.isfinite(short) else value  # the largest floats round up
        if isinstance(value, list):
            return [fix(item) for item in value]
        if isinstance(value, dict):
            return {key: fix(item) for key, item in value.items()}
        return value

    return fix(summary)


def summarize_per_env(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """`summarize` of each env's records, by env and config (`groups`), sorted by label."""
    from .groups import group_labels

    records = list(records)
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for label, record in zip(group_labels(records), records, strict=True):
        groups.setdefault(label, []).append(record)
    return {env: summarize(group) for env, group in sorted(groups.items())}
