"""The rewards each env's episodes got: to keep intervals inside what rewards can be, and to flag
a mean that adds up rewards of different scales.

No env declares the range of its rewards (the Env protocol has no such field, and a record
carries none), so the range used is the one the records show: the least and the greatest total
reward of the env's played episodes. An interval of a mean is clipped to it (a mean of rewards
cannot leave their range; the interval of a few rare wins' mean reaches below the least reward),
and the interval of a difference of two means to [least of one - greatest of the other, ...].
A range seen is at most the range possible, so a clipped interval can be narrower than one
made with the true range; it never holds a value no reward seen allows.

Scales: an env's reward scale is the width of its range (greatest - least). A mean over several
envs mixes scales when the widest is more than `SCALE_RATIO` times the narrowest: then the envs
with the larger rewards decide the mean, and it says little about the others. Envs whose reward
never varied (width 0) are left out of that comparison: their scale cannot be told.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .records import NOT_PLAYED

Range = tuple[float, float]

SCALE_RATIO = 10.0
"""Widest reward range over narrowest that counts as different scales: an order of magnitude."""


def reward_ranges(records: Iterable[Mapping[str, Any]]) -> dict[str, Range]:
    """The least and greatest total reward of each env's played episodes, by env name (the
    rewards `stats.summarize` averages; not-finite ones left out)."""
    ranges: dict[str, Range] = {}
    for record in records:
        if record.get("status") == NOT_PLAYED:
            continue
        reward = float(record.get("total_reward") or 0.0)
        if not math.isfinite(reward):
            continue
        env = str(record.get("env"))
        low, high = ranges.get(env, (reward, reward))
        ranges[env] = (min(low, reward), max(high, reward))
    return ranges


def overall(ranges: Iterable[Range]) -> Range | None:
    """The range that holds all of `ranges`; None when there are none."""
    ranges = list(ranges)
    if not ranges:
        return None
    return (min(low for low, _ in ranges), max(high for _, high in ranges))


def clip(interval: Sequence[float], bounds: Range | None) -> list[float]:
    """`interval` cut to `bounds` (NaN and no bounds: left as they are)."""
    low, high = interval
    if bounds is None or math.isnan(low) or math.isnan(high):
        return [low, high]
    return [min(max(low, bounds[0]), bounds[1]), max(min(high, bounds[1]), bounds[0])]


def difference_bounds(baseline: Range | None, other: Range | None) -> Range | None:
    """Where `other`'s mean minus `baseline`'s can lie, given the rewards seen of each."""
    if baseline is None or other is None:
        return None
    return (other[0] - baseline[1], other[1] - baseline[0])


def mixed_scales(ranges: Mapping[str, Range]) -> bool:
    """Whether the envs' reward ranges differ in width by more than `SCALE_RATIO` times (those
    of width 0 left out)."""
    widths = [high - low for low, high in ranges.values() if high > low]
    return len(widths) > 1 and max(widths) > SCALE_RATIO * min(widths)
