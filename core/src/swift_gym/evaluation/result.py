"""`EvalResult`: the episodes of a run and what they add up to; saved as, and loaded from, a
trajectory file (see `records`).

The summary is computed from the records whenever it is asked for, so it always matches them:
success rate and its 95% Wilson interval, mean total reward and its 95% interval, mean turns,
invalid-action rate, the count of each final status, failed episodes; per env too. Episodes an
interrupt left unplayed and unrecorded (`unrecorded`) count as not played, as do records with
status "not_played"; neither is in any rate's n (see `stats`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import EvaluationError
from .figures import figure
from .records import dumps, read_records
from .stats import summarize, summarize_per_env

if TYPE_CHECKING:
    from .compare import Difference


@dataclass
class EvalResult:
    """What `evaluate` played: `records` (trajectory records, in index order) and the summary."""

    records: list[dict[str, Any]]
    unrecorded: int = 0
    """Episodes not played that have no record (an interrupt stopped the run)."""
    stopped: str | None = None
    """Why the run stopped before its last episode, or None."""
    signal: int | None = None
    """The signal that stopped it, when one did (the command's SIGINT or SIGTERM)."""
    slim: bool = False
    """The records hold only what the summary needs (`keep_records=False`): no file from them."""

    @property
    def summary(self) -> dict[str, Any]:
        """Every number of the run, as `swift-gym eval --json` prints them (NaN: no episodes;
        -inf or inf: an interval bound beyond the largest float, null in JSON)."""
        return summarize(self.records, self.unrecorded)

    @property
    def per_env(self) -> dict[str, dict[str, Any]]:
        """The summary of each env's episodes, by env name."""
        return summarize_per_env(self.records)

    @property
    def total(self) -> int:
        """Episodes the run was asked for: played, and not played."""
        return len(self.records) + self.unrecorded

    @property
    def episodes(self) -> int:
        """Episodes played (failed ones included, those not played excluded)."""
        return int(self.summary["episodes"])

    @property
    def not_played(self) -> int:
        return int(self.summary["not_played"])

    @property
    def success_rate(self) -> float:
        return float(self.summary["success_rate"])

    @property
    def success_rate_ci95(self) -> tuple[float, float]:
        low, high = self.summary["success_rate_ci95"]
        return (low, high)

    @property
    def mean_reward(self) -> float:
        return float(self.summary["mean_reward"])

    @property
    def mean_reward_ci95(self) -> tuple[float, float]:
        low, high = self.summary["mean_reward_ci95"]
        return (low, high)

    @property
    def mean_turns(self) -> float:
        return float(self.summary["mean_turns"])

    @property
    def invalid_action_rate(self) -> float | None:
        """Share of replies the envs judged invalid; None when no env said."""
        rate = self.summary["invalid_action_rate"]
        return None if rate is None else float(rate)

    @property
    def statuses(self) -> dict[str, int]:
        return dict(self.summary["statuses"])

    @property
    def cut_off(self) -> int:
        """Episodes the turn limit ended before the env did (status "max_turns"): raise
        `max_turns` when there are many."""
        return int(self.summary["statuses"].get("max_turns", 0))

    @property
    def turn_limits(self) -> list[int]:
        """The distinct turn limits the played episodes had (`max_turns`, or each env's
        horizon), ascending."""
        limits = {record.get("max_turns") for record in self.records}
        return sorted(n for n in limits if isinstance(n, int) and not isinstance(n, bool))

    @property
    def failed_episodes(self) -> int:
        """Episodes that ended with an env or policy error (status "error")."""
        return int(self.summary["failed_episodes"])

    def compare(self, other: EvalResult) -> list[Difference]:
        """How `other` differs from this run (the baseline): success rate, then mean reward,
        each `other - self` with its 95% interval and whether it is significant (see
        `compare`)."""
        from .compare import differences

        return differences(self.summary, other.summary)

    def save(self, path: Path | str) -> None:
        """Write the records as a trajectory file (`-`: stdout); a regular file is replaced
        atomically (see `output_files`)."""
        from ..output_files import open_output

        if self.slim:
            raise EvaluationError(
                "this result kept only what its summary needs (keep_records=False): no "
                "trajectory file can be made from it; pass output= to write one as it runs"
            )
        with open_output(path) as file:
            for record in self.records:
                file.write(dumps(record) + "\n")

    @classmethod
    def load(cls, path: Path | str) -> EvalResult:
        """The episodes of a trajectory file (lines that are none are skipped, with a warning).

        Raises `TrajectoryFileError` when the file has lines but no episode at all.
        """
        import warnings

        skipped: list[str] = []
        records = sorted(read_records(path, skipped.append), key=_index)
        if skipped:
            more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
            warnings.warn(f"skipped {skipped[0]}{more}", stacklevel=2)
        return cls(records)

    def __repr__(self) -> str:
        def number(value: float) -> str:
            return "nan" if math.isnan(value) else figure(value)

        summary = self.summary  # once: each property would summarise every record again
        low, high = summary["success_rate_ci95"]
        text = (
            f"EvalResult(episodes={summary['episodes']}, "
            f"success_rate={number(summary['success_rate'])} "
            f"[{number(low)}, {number(high)}], mean_reward={number(summary['mean_reward'])}"
        )
        if summary["not_played"]:
            text += f", not_played={summary['not_played']}"
        if self.stopped:
            text += f", stopped={self.stopped!r}"
        return text + ")"


def _index(record: dict[str, Any]) -> Any:
    index = record.get("index")
    return (0, index) if isinstance(index, int) and not isinstance(index, bool) else (1, 0)
