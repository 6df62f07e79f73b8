"""`CheckOptions`: how hard the conformance kit plays, validated before anything runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import did_you_mean
from .report import CHECKS


@dataclass(frozen=True)
class CheckOptions:
    """How hard the kit plays. The defaults suit a unit test: about a second per config."""

    seeds: tuple[int, ...] = (0, 1, 2)
    """Seeds played for each config that sets none (a config's own seed is always kept)."""
    sample_replies: tuple[str | Mapping[str, Any], ...] = ()
    """Valid moves of the env, mixed into the replies so that episodes get somewhere."""
    max_steps: int = 50
    """Steps after which an episode is cut, if it has not ended."""
    block_budget: float = 0.5
    """Seconds one reset or step may run without awaiting; generous, so it does not flake."""
    call_timeout: float = 10.0
    """Seconds one reset or step may take in all before it counts as hung."""
    copies: int = 2
    """Instances of each seeded config that play interleaved in the isolation check."""
    skip: frozenset[str] = frozenset()
    """Names of checks (see `CHECKS`) not to run."""

    def __post_init__(self) -> None:
        for name in self.skip:
            if name not in CHECKS:
                hint = did_you_mean(name, CHECKS)
                raise ValueError(
                    f"unknown check {name!r} in skip"
                    + (f"; did you mean {hint!r}?" if hint else "")
                    + f" Checks: {', '.join(CHECKS)}"
                )
        if not self.seeds:
            raise ValueError("seeds must hold at least one seed")
        if self.max_steps < 1 or self.copies < 1:
            raise ValueError("max_steps and copies must be at least 1")

    @property
    def checks(self) -> tuple[str, ...]:
        return tuple(name for name in CHECKS if name not in self.skip)

    @classmethod
    def from_kwargs(cls, options: Mapping[str, Any]) -> CheckOptions:
        """Options given as keyword arguments, with lists accepted where tuples are kept."""
        fields = dict(options)
        for name in ("seeds", "sample_replies"):
            if name in fields:
                fields[name] = tuple(fields[name])
        if "skip" in fields:
            fields["skip"] = frozenset(fields["skip"])
        return cls(**fields)
