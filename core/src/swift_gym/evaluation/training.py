"""Where in training an episode was played: a record's `training` place, and step ranges.

Records that SWIFT_GYM_TRAJECTORIES wrote carry `training` = {step, time, sequence, host, pid,
rank} (see `ms_swift.trajectory_log`); records from `swift-gym eval -o` carry none. The file is
data: a field of the wrong type is read as unknown (None), never trusted or raised on, and so is
one out of range: a count (step, sequence, pid, rank) beyond `MAX_COUNT`, a time that is no date
(`FIRST_TIME` to `LAST_TIME`), so that curves and their spans never overflow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_COUNT = 2**63 - 1
"""The largest count a training place holds: what a 64-bit counter can."""
FIRST_TIME = -62135596800.0
"""Unix seconds of 0001-01-01 UTC, the first moment a date can name."""
LAST_TIME = 253402300800.0
"""Unix seconds of 10000-01-01 UTC: a time is before it."""


@dataclass(frozen=True)
class TrainingPlace:
    """Where and when a training episode ended; each field None when unknown."""

    step: int | None
    """Optimizer steps already taken (0: the initial model); None from a `swift rollout` worker."""
    time: float | None
    """Unix seconds when the episode ended."""
    sequence: int | None
    """The process's count of episodes, from 0 (the record's `index`)."""
    host: str | None
    pid: int | None
    rank: int | None


def _count(value: Any) -> int | None:
    """A whole number from 0 to `MAX_COUNT` (not a bool), else None."""
    whole = isinstance(value, int) and not isinstance(value, bool)
    return value if whole and 0 <= value <= MAX_COUNT else None


def _time(value: Any) -> float | None:
    """Unix seconds from `FIRST_TIME` to before `LAST_TIME` (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if FIRST_TIME <= value < LAST_TIME else None


def training_place(record: Mapping[str, Any]) -> TrainingPlace | None:
    """The record's place in training, or None for a record without a `training` object."""
    training = record.get("training")
    if not isinstance(training, Mapping):
        return None
    host = training.get("host")
    return TrainingPlace(
        step=_count(training.get("step")),
        time=_time(training.get("time")),
        sequence=_count(training.get("sequence")),
        host=host if isinstance(host, str) else None,
        pid=_count(training.get("pid")),
        rank=_count(training.get("rank")),
    )


_STEP = re.compile(r"\s*([0-9]{1,18})\s*")
_RANGE = re.compile(r"\s*([0-9]{0,18})\s*:\s*([0-9]{0,18})\s*")


@dataclass(frozen=True)
class StepRange:
    """Training steps from `first` to `last`, both included; None: no bound on that side."""

    first: int | None
    last: int | None

    def __contains__(self, step: object) -> bool:
        if _count(step) is None:  # no step known (a `swift rollout` worker): never in a range
            return False
        assert isinstance(step, int)
        return (self.first is None or step >= self.first) and (
            self.last is None or step <= self.last
        )

    def __str__(self) -> str:
        if self.first is not None and self.first == self.last:
            return f"step {self.first}"
        if self.last is None:
            return f"step {self.first} or later"
        if self.first is None:
            return f"step {self.last} or earlier"
        return f"steps {self.first} to {self.last}"


def parse_step_range(text: str) -> StepRange:
    """`N` (that step), `A:B` (A to B, both included), `A:` (A and later) or `:B` (up to B).

    Raises `ValueError` saying what to write instead.
    """
    single = _STEP.fullmatch(text)
    if single is not None:
        return StepRange(int(single.group(1)), int(single.group(1)))
    match = _RANGE.fullmatch(text)
    if match is None or not (match.group(1) or match.group(2)):
        raise ValueError(
            f"{text[:40]!r} is no step or range: write a step N (10), or FIRST:LAST with both "
            "included (10:20), FIRST: (10 and later) or :LAST (up to 20); steps are whole "
            "numbers from 0"
        )
    first = int(match.group(1)) if match.group(1) else None
    last = int(match.group(2)) if match.group(2) else None
    if first is not None and last is not None and first > last:
        raise ValueError(
            f"{text[:40]!r}: the first step ({first}) is after the last ({last}); "
            f"write {last}:{first}"
        )
    return StepRange(first, last)
