"""What an agent program returns (its reward, or an `AgentResult`), read into a step's outcome."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..errors import SwiftGymError, short_repr


@dataclass(frozen=True)
class AgentResult:
    """An agent program's outcome: the episode's reward, with metrics and info if it has any.

    `metrics` reach `rollout_infos['env_metrics']` and `swift-gym eval`'s summary; `info` is
    the last step's info (JSON-like values).
    """

    reward: float
    metrics: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


class AgentProgramError(SwiftGymError, RuntimeError):
    """The agent program failed: it raised, returned something that is no reward, or ended
    before its first call to the model. Ends only its own episode."""


def read_result(value: Any) -> tuple[float, dict[str, Any]]:
    """(reward, info) of what `run` returned; AgentProgramError when it is neither a number
    nor an AgentResult (or the reward is not finite)."""
    if isinstance(value, AgentResult):
        reward, info = value.reward, dict(value.info)
        if not isinstance(info, dict):
            raise AgentProgramError(f"AgentResult.info must be a dict, got {short_repr(info)}")
        if value.metrics:
            info["metrics"] = dict(value.metrics)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        reward, info = value, {}
    else:
        raise AgentProgramError(
            f"run() must return its reward (a number) or an AgentResult, got {short_repr(value)}"
        )
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        raise AgentProgramError(f"the reward must be a number, got {short_repr(reward)}")
    if not math.isfinite(reward):
        raise AgentProgramError(f"the reward must be finite, got {reward!r}")
    return float(reward), info
