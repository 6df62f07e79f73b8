"""What `reset` and `step` must return, checked value by value.

Each function returns the problems it finds as `(check, message)` pairs, so one bad result can
break several rules at once (a NaN reward and an info holding a set) and all are reported.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..errors import short_repr

Problem = tuple[str, str]


def _type_name(value: Any) -> str:
    return type(value).__name__


def info_problems(info: Any) -> list[Problem]:
    """An info must be a dict that `json.dumps` writes (no NaN, no sets, no objects)."""
    if not isinstance(info, dict):
        return []  # the shape check reports it
    try:
        json.dumps(info, allow_nan=False)
    except (TypeError, ValueError) as error:
        return [("info_json", f"info is not JSON-serializable: {error} (info {short_repr(info)})")]
    return []


def reset_problems(result: Any) -> list[Problem]:
    """Problems of a reset result, which must be `(observation, info, system_prompt)`."""
    if not isinstance(result, tuple) or len(result) != 3:
        return [
            (
                "reset",
                "reset() must return a tuple (observation: str, info: dict, system_prompt: str), "
                f"got {short_repr(result)}",
            )
        ]
    observation, info, system_prompt = result
    problems = []
    for what, value, wanted in (
        ("observation", observation, str),
        ("info", info, dict),
        ("system_prompt", system_prompt, str),
    ):
        if not isinstance(value, wanted):
            problems.append(
                ("reset", f"reset()'s {what} must be a {wanted.__name__}, got {_type_name(value)}")
            )
    return problems + info_problems(info)


def step_problems(result: Any) -> list[Problem]:
    """Problems of a step result, which must be `(observation, reward, done, info)`."""
    if not isinstance(result, tuple) or len(result) != 4:
        return [
            (
                "step",
                "step() must return a tuple (observation: str, reward: float, done: bool, "
                f"info: dict), got {short_repr(result)}",
            )
        ]
    observation, reward, done, info = result
    problems = []
    if not isinstance(observation, str):
        problems.append(
            ("step", f"step()'s observation must be a str, got {_type_name(observation)}")
        )
    if not isinstance(done, bool):
        problems.append(
            ("step", f"step()'s done must be a bool, got {short_repr(done)}: return bool(...)")
        )
    if not isinstance(info, dict):
        problems.append(("step", f"step()'s info must be a dict, got {_type_name(info)}"))
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        problems.append(
            (
                "reward",
                f"reward must be an int or float, got {short_repr(reward)} "
                f"({_type_name(reward)}): return float(...)",
            )
        )
    elif not math.isfinite(reward):
        problems.append(("reward", f"reward must be finite, got {reward!r}"))
    return problems + info_problems(info)


def is_step_result(result: Any) -> bool:
    """Whether `result` has the shape needed to go on with the episode."""
    return isinstance(result, tuple) and len(result) == 4 and isinstance(result[0], str)
