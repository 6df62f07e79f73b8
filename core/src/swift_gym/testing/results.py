"""What `reset`, `step` and `tools` must return, checked value by value.

Each function returns the problems it finds as `(check, message)` pairs, so one bad result can
break several rules at once (a NaN reward and an info holding a set) and all are reported.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidStepError, InvalidToolsError, short_repr
from ..steps import StepResult, check_tool_results
from ..tools.toolset import ToolCall, offered_tools

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


def step_problems(result: Any, calls: Sequence[ToolCall] = ()) -> list[Problem]:
    """Problems of a step result, which must be `(observation, reward, done, info)`, or a
    `StepResult` whose tool results answer `calls` (the reply's tool calls) one to one."""
    problems = []
    if isinstance(result, StepResult):
        try:
            check_tool_results(result.tool_results, calls)
        except InvalidStepError as error:
            problems.append(("step", str(error)))
        result = (result.observation, result.reward, result.done, result.info)
    if not isinstance(result, tuple) or len(result) != 4:
        return [
            (
                "step",
                "step() must return a tuple (observation: str, reward: float, done: bool, "
                f"info: dict) or a StepResult, got {short_repr(result)}",
            )
        ]
    observation, reward, done, info = result
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
    if isinstance(result, StepResult):
        return isinstance(result.observation, str)
    return isinstance(result, tuple) and len(result) == 4 and isinstance(result[0], str)


def tools_problems(env: Any) -> list[Problem]:
    """Problems of the tools `env` offers now (after reset); none for a text env."""
    try:
        offered_tools(env)
    except InvalidToolsError as error:
        return [("tools", str(error))]
    except Exception as error:  # the env's failure is what the kit reports
        return [("tools", f"tools() raised {type(error).__name__}: {short_repr(str(error), 200)}")]
    return []
