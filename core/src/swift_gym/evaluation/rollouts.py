"""Several rollouts per seed (`evaluate(rollouts_per_seed=K)`, `eval --rollouts-per-seed K`):
which sampling seed each rollout gets, and what the rollouts of each seed add up to.

Each rollout of a seed (or of a dataset row) is an episode of its own, with the same env config
and its own sampling seed (`sampling_seed`), derived from the seed, the row and the rollout
index, so a run can be played again draw for draw. Its record says which (`task`, `rollout`,
`sampling_seed`).

Per seed with n rollouts played of which c succeeded, pass@k is the chance that at least one of
k rollouts drawn from them succeeds: 1 - C(n-c, k) / C(n, k), the unbiased estimator of Chen et
al. (2021, "Evaluating Large Language Models Trained on Code"), computed exactly (fractions),
then averaged over the seeds with at least k rollouts played. The spread: how many seeds some
rollout solved, how many every rollout did, and the mean over seeds of the standard deviation of
their rollouts' success (0 where a seed's rollouts agree, 0.5 at most).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from .groups import group_of
from .records import NOT_PLAYED


def sampling_seed(task: int, seed: Any, rollout: int) -> int:
    """The seed of rollout `rollout` of episode `task` (whose env seed is `seed`): a 31-bit
    number, the same on every machine and Python (sha256 of the three)."""
    text = f"swift-gym/eval/{task}/{seed}/rollout/{rollout}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") >> 1


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """The chance that at least one of `k` of `n` rollouts, `c` of which succeeded, succeeds:
    1 - C(n-c, k) / C(n, k), exactly (`k` at most `n`)."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@{k} of {c} successes in {n} rollouts")
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def ks(rollouts: int) -> list[int]:
    """The k of pass@k reported for `rollouts` per seed: 1, 2, 4, ... below it, and it."""
    chosen = {rollouts}
    k = 1
    while k < rollouts:
        chosen.add(k)
        k *= 2
    return sorted(chosen)


def task_key(record: Mapping[str, Any]) -> str:
    """What tells apart the seeds (rows) a record's rollout belongs to: the env and its config
    (`groups.group_of`) and the seed; a row without a seed, its `task` number. Two files of one
    run (the second one played the seeds the first did not) group alike."""
    env, config = group_of(record)
    seed = record.get("seed")
    which = ["seed", seed] if seed is not None else ["task", record.get("task")]
    return json.dumps([env, config, *which], sort_keys=True, default=repr)


def is_rollout(record: Mapping[str, Any]) -> bool:
    """Whether `record` is one of several rollouts of its seed (a played one or not)."""
    rollout = record.get("rollout")
    return isinstance(rollout, int) and not isinstance(rollout, bool) and rollout >= 0


class RolloutTally:
    """Successes per seed, fed one record at a time (`add`), summarised by `summary`."""

    def __init__(self) -> None:
        self.seeds: dict[str, list[int]] = {}
        """Per seed: [rollouts played, successes]."""
        self.rollouts = 0
        """Rollouts per seed the run asked for: the highest rollout index seen, plus one."""

    def add(self, record: Mapping[str, Any]) -> None:
        if not is_rollout(record):
            return
        self.rollouts = max(self.rollouts, int(record["rollout"]) + 1)
        if record.get("status") == NOT_PLAYED:
            return
        counts = self.seeds.setdefault(task_key(record), [0, 0])
        counts[0] += 1
        counts[1] += bool(record.get("success"))

    def summary(self) -> dict[str, Any] | None:
        """pass@k and the spread (see the module docstring); None when no record was one of
        several rollouts."""
        if not self.rollouts:
            return None
        played = list(self.seeds.values())
        passes: dict[str, float] = {}
        counted: dict[str, int] = {}
        for k in ks(self.rollouts):
            values = [pass_at_k(n, c, k) for n, c in played if n >= k]
            if values:
                passes[str(k)] = float(sum(values, Fraction(0)) / len(values))
                counted[str(k)] = len(values)
        spreads = [math.sqrt(c / n * (1 - c / n)) for n, c in played if n > 1]
        return {
            "rollouts_per_seed": self.rollouts,
            "seeds": len(played),
            "pass_at_k": passes,
            "pass_at_k_seeds": counted,
            "solved_by_any": sum(c > 0 for _, c in played),
            "solved_by_all": sum(c == n for n, c in played),
            "mean_seed_success_std": math.fsum(spreads) / len(spreads) if spreads else math.nan,
        }
