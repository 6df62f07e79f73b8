"""Learning curves: success rate and mean reward over training, from training trajectories.

A training record (SWIFT_GYM_TRAJECTORIES) says where it happened in `training`: the trainer's
optimizer `step` where the process could know it (trainer ranks), and always the wall-clock
`time`. The curve's x is the step when every record of the run has one, else the time since the
run's first episode (a `swift rollout` worker knows no step). Episodes are grouped by x: each
distinct step is a point when there are few, else equal-width bins, each point spanning the
first to the last x of its episodes; each point is a `summarize` of its episodes, so its
intervals are the summary's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .stats import summarize
from .training import training_place

STEP = "step"
TIME = "time since the first episode (s)"


@dataclass(frozen=True)
class Point:
    """Episodes that ended with x in [low, high]."""

    low: float
    high: float
    summary: dict[str, Any]

    @property
    def x(self) -> float:
        return (self.low + self.high) / 2


@dataclass(frozen=True)
class Curve:
    """One series: `points` along `axis` (STEP or TIME)."""

    name: str
    axis: str
    points: list[Point]


def _place(record: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """A record's training step and time (None where unknown, or no training record)."""
    place = training_place(record)
    if place is None:
        return (None, None)
    return (None if place.step is None else float(place.step), place.time)


def is_training(records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether any record comes from training."""
    return any(_place(record)[1] is not None for record in records)


def axis_of(records: Sequence[Mapping[str, Any]]) -> str | None:
    """STEP when every training record has one, TIME when they have times, else None."""
    places = [_place(record) for record in records]
    places = [place for place in places if place != (None, None)]
    if not places:
        return None
    if all(step is not None for step, _ in places):
        return STEP
    if all(time is not None for _, time in places):
        return TIME
    return None


def curve(
    name: str, records: Sequence[Mapping[str, Any]], axis: str, bins: int = 20, start: float = 0.0
) -> Curve:
    """`records` along `axis`; times count from `start`. Records without that place are left
    out."""
    placed: list[tuple[float, Mapping[str, Any]]] = []
    for record in records:
        step, time = _place(record)
        x = step if axis == STEP else (None if time is None else time - start)
        if x is not None:
            placed.append((x, record))
    placed.sort(key=lambda pair: pair[0])
    if not placed:
        return Curve(name, axis, [])
    distinct = sorted({x for x, _ in placed})
    if len(distinct) <= bins:
        groups: dict[float, list[Mapping[str, Any]]] = {x: [] for x in distinct}
        for x, record in placed:
            groups[x].append(record)
        points = [Point(x, x, summarize(group)) for x, group in groups.items()]
        return Curve(name, axis, points)
    low, high = distinct[0], distinct[-1]
    width = (high - low) / bins
    buckets: list[list[tuple[float, Mapping[str, Any]]]] = [[] for _ in range(bins)]
    for x, record in placed:
        buckets[min(bins - 1, int((x - low) / width))].append((x, record))
    # each point spans the x its episodes have (whole steps on the step axis), not the bin's
    # edges, which fall between steps
    points = [
        Point(bucket[0][0], bucket[-1][0], summarize([record for _, record in bucket]))
        for bucket in buckets
        if bucket
    ]
    return Curve(name, axis, points)


def run_curves(
    records: Sequence[Mapping[str, Any]], bins: int = 20, per_env: bool = True
) -> list[Curve]:
    """A run's curves: all its episodes ("all"), then one per env when it mixes several.
    Empty when the run holds no training records."""
    axis = axis_of(records)
    if axis is None:
        return []
    times = [time for _, time in map(_place, records) if time is not None]
    start = min(times) if times else 0.0
    curves = [curve("all", records, axis, bins, start)]
    envs: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        envs.setdefault(str(record.get("env")), []).append(record)
    if per_env and len(envs) > 1:
        curves += [curve(env, group, axis, bins, start) for env, group in sorted(envs.items())]
    return curves
