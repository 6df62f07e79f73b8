"""What the conformance kit found: one `Violation` per problem, gathered in a report.

Each violation names the check, the config that was played (seed included) and the step, so a
failure can be replayed with `make(config)` and the same replies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import SwiftGymError, short_repr

CHECKS: dict[str, str] = {
    "config_schema": "the config model exports JSON Schema",
    "config_strict": "the config model rejects unknown keys",
    "config_bounds": "every config field is bounded (numbers, string and list lengths)",
    "construct": "the env builds from each given config",
    "reset": "reset() returns (observation: str, info: dict, system_prompt: str) in time",
    "step": "step() returns (observation: str, reward, done: bool, info: dict) in time, or a "
    "StepResult answering each tool call of the reply once",
    "tools": "tools() after reset offers valid function tools (OpenAI names, unique, a "
    "parameters schema the checker supports)",
    "tool_calls": "every tool, called with arguments drawn from its schema, is answered; garbage "
    "calls (unknown tool, no name, arguments not JSON, not an object or not matching) each get "
    "an error result; no call raises",
    "reward": "every reward is a finite int or float",
    "info_json": "every info is JSON-serializable",
    "garbage": "garbage replies (empty, None, huge, unicode, list content, ...) never raise",
    "messages": "the env never mutates the messages it is given",
    "close": "close() is a coroutine, safe twice and after an unfinished episode",
    "determinism": "the same seed and replies give the same episode",
    "isolation": "instances interleaved on one loop play as they do one after another",
    "global_rng": "the global random (and numpy) RNG state is untouched",
    "blocking": "reset() and step() never block the event loop beyond the budget",
    "never_blocks": "an env that declares `never_blocks` plays an episode (built, reset, "
    "stepped, closed) without a blocking call: no sleep, file, socket or process",
}
"""Every check the kit runs, by name: the names `skip=` takes and the pytest test ids."""

ENV_CHECKS = ("config_schema", "config_strict", "config_bounds")
"""Checks of the env class itself; the others run once per config."""

_SHOWN = 20


@dataclass(frozen=True)
class Violation:
    """One broken rule: which check, what happened, and where (config, step, reply)."""

    check: str
    message: str
    config: Mapping[str, Any] | None = None
    step: int | None = None
    """0 for reset, n for the n-th step of the episode; None outside an episode."""
    reply: str | None = None
    """Name of the reply sent at this step (see `GARBAGE_REPLIES`), or its text, cut short."""

    def __str__(self) -> str:
        where = []
        if self.config is not None:
            where.append(f"config {short_repr(dict(self.config), 120)}")
        if self.step is not None:
            where.append("reset" if self.step == 0 else f"step {self.step}")
        if self.reply is not None:
            where.append(f"reply {self.reply}")
        place = f" ({', '.join(where)})" if where else ""
        return f"[{self.check}]{place}: {self.message}"


@dataclass
class ConformanceReport:
    """Every violation found for one env, and which checks ran."""

    env: str
    checks: tuple[str, ...]
    violations: list[Violation] = field(default_factory=list)
    episodes: int = 0
    steps: int = 0

    @property
    def ok(self) -> bool:
        return not self.violations

    def of(self, check: str) -> list[Violation]:
        """The violations of one check."""
        return [violation for violation in self.violations if violation.check == check]

    def __str__(self) -> str:
        head = (
            f"env {self.env}: {len(self.violations)} conformance violation"
            f"{'s' * (len(self.violations) != 1)} in {self.episodes} episodes, {self.steps} steps"
        )
        lines = [head, *(f"  - {violation}" for violation in self.violations[:_SHOWN])]
        if len(self.violations) > _SHOWN:
            lines.append(f"  ... and {len(self.violations) - _SHOWN} more")
        return "\n".join(lines)

    def raise_for_violations(self) -> None:
        """Raise `ConformanceError` listing the violations, if there are any."""
        if self.violations:
            raise ConformanceError(self)


class ConformanceError(SwiftGymError, AssertionError):
    """An env breaks the env contract. An AssertionError, so test runners show it as a failure."""

    def __init__(self, report: ConformanceReport):
        super().__init__(str(report))
        self.report = report
