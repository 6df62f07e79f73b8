"""What `reset`, `step` and `tools` must return, checked value by value.

Each function returns the problems it finds as `(check, message)` pairs, so one bad result can
break several rules at once (a NaN reward and an info holding a set) and all are reported.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..episode import checks
from ..errors import InvalidToolsError, short_repr
from ..steps import StepResult
from ..tools.toolset import ToolCall, offered_tools

Problem = tuple[str, str]


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
    """Problems of a reset result (`episode.checks`: the rules every face applies), and an
    info that is not JSON."""
    problems = checks.reset_problems(result)
    if problems or not isinstance(result, tuple):
        return problems
    return info_problems(result[1])


def step_problems(result: Any, calls: Sequence[ToolCall] | None = ()) -> list[Problem]:
    """Problems of a step result (`episode.checks`: the rules every face applies, so the kit
    reports what training, eval and serve would refuse, in the same words), and an info that is
    not JSON."""
    problems = checks.step_problems(result, calls)
    info = result.info if isinstance(result, StepResult) else None
    if isinstance(result, tuple) and len(result) == 4:
        info = result[3]
    return problems + info_problems(info)


def tools_problems(env: Any) -> list[Problem]:
    """Problems of the tools `env` offers now (after reset); none for a text env."""
    try:
        offered_tools(env)
    except InvalidToolsError as error:
        return [("tools", str(error))]
    except Exception as error:  # the env's failure is what the kit reports
        return [("tools", f"tools() raised {type(error).__name__}: {short_repr(str(error), 200)}")]
    return []
