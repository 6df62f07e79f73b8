"""What an episode came to: its status, whether it succeeded, what each reply did.

The rules training records, evaluation and reports share, read from the env's infos.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def parsed_action(info: Mapping[str, Any]) -> Any:
    """The action the env read from the reply, if its info says (`action` or `parsed_action`)."""
    return info.get("action", info.get("parsed_action"))


def valid_action(info: Mapping[str, Any]) -> bool | None:
    """Whether the reply held a valid action: `metrics.valid_action`, else whether `action`
    is set; None when the env reports neither."""
    metrics = info.get("metrics")
    if isinstance(metrics, Mapping) and isinstance(metrics.get("valid_action"), (int, float)):
        return bool(metrics["valid_action"])
    if "action" in info or "parsed_action" in info:
        return parsed_action(info) is not None
    return None


def succeeded(info: Mapping[str, Any], done: bool, total_reward: float) -> bool:
    """`success` from the last info (or its `metrics`); else: the env ended the episode with
    some reward earned."""
    for source in (info, info.get("metrics")):
        if isinstance(source, Mapping) and isinstance(source.get("success"), (bool, int, float)):
            return bool(source["success"])
    return done and total_reward > 0


def final_status(info: Mapping[str, Any], done: bool) -> str:
    """An episode's status from its last info: the env's `status` (else "done") when the env
    ended it, "max_turns" when the turn limit did."""
    if not done:
        return "max_turns"
    status = info.get("status")
    return status if isinstance(status, str) and status else "done"
