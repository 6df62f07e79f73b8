"""The one check of what an env's `reset` and `step` returned, for every face.

Training, evaluation, `play`, `serve` and the conformance kit all read a step through
`checked_step` and a reset through `checked_reset`, so a result gets the same verdict and the
same error text everywhere. The rules:

- `reset` returns `(observation, info, system_prompt)`: a str, a dict, and a str or None (no
  system prompt).
- `step` returns the tuple `(observation, reward, done, info)` (a list is refused) or a
  `StepResult`: a str, a finite int or float (not a bool), a bool (1 and numpy's bool are
  refused: return `bool(...)`), a dict (None is refused: return `{}`).
- the tool results answer the reply's calls one to one, by id and tool name, when the env offers
  tools; an env that offers none answers no call.

`step_problems` lists every broken rule (the kit reports them all); `checked_step` raises
`InvalidStepError` with the first, which is the same text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidStepError, printable, short_repr
from ..steps import StepResult
from ..tools.toolset import ToolCall, ToolResult

STEP_SHAPE = "(observation, reward, done, info) or a StepResult"
RESET_SHAPE = "(observation, info, system_prompt)"

Problem = tuple[str, str]
"""A broken rule: which check ("reset", "step" or "reward") and the message."""


def reset_problems(value: Any) -> list[Problem]:
    """Every rule `value`, what `reset` returned, breaks."""
    if not (isinstance(value, tuple) and len(value) == 3):
        return [("reset", f"reset() must return {RESET_SHAPE}, got {short_repr(value)}")]
    observation, info, system_prompt = value
    problems = []
    if not isinstance(observation, str):
        problems.append(("reset", f"reset()'s observation must be a str, got {_kind(observation)}"))
    if not isinstance(info, dict):
        problems.append(("reset", f"reset()'s info must be a dict, got {_kind(info)}"))
    if system_prompt is not None and not isinstance(system_prompt, str):
        problems.append(
            ("reset", f"reset()'s system_prompt must be a str or None, got {_kind(system_prompt)}")
        )
    return problems


def checked_reset(value: Any) -> tuple[str, dict[str, Any], str]:
    """`value`, what `reset` returned, as (observation, info, system prompt: "" for None);
    raises InvalidStepError with the first broken rule."""
    problems = reset_problems(value)
    if problems:
        raise InvalidStepError(problems[0][1])
    observation, info, system_prompt = value
    return observation, info, system_prompt or ""


def step_problems(value: Any, calls: Sequence[ToolCall] | None = ()) -> list[Problem]:
    """Every rule `value`, what `step` returned, breaks; `calls`: the reply's tool calls the
    results must answer one to one (() for an env that offers no tools: it answers none; None:
    not checked)."""
    if isinstance(value, StepResult):
        observation, reward, done, info = value.observation, value.reward, value.done, value.info
        results: Any = value.tool_results
    elif isinstance(value, tuple) and len(value) == 4:
        observation, reward, done, info = value
        results = ()
    else:
        return [("step", f"step() must return {STEP_SHAPE}, got {short_repr(value)}")]
    problems = []
    if not isinstance(observation, str):
        problems.append(("step", f"step()'s observation must be a str, got {_kind(observation)}"))
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        problems.append(
            ("reward", f"step()'s reward must be an int or float, got {short_repr(reward)}")
        )
    elif not math.isfinite(reward):
        problems.append(("reward", f"step()'s reward must be finite, got {reward!r}"))
    if not isinstance(done, bool):
        problems.append(
            ("step", f"step()'s done must be a bool, got {short_repr(done)}: return bool(...)")
        )
    if not isinstance(info, dict):
        problems.append(("step", f"step()'s info must be a dict, got {short_repr(info)}"))
    problem = tool_results_problem(results, calls)
    if problem is not None:
        problems.append(("step", problem))
    return problems


def checked_step(value: Any, calls: Sequence[ToolCall] | None = ()) -> StepResult:
    """`value`, what `step` returned, as a StepResult (the reward a float, the results a
    tuple); raises InvalidStepError with the first rule it breaks (see `step_problems`)."""
    if type(value) is tuple and len(value) == 4 and not calls:  # a text step: the common case
        observation, reward, done, info = value
        if (
            type(observation) is str
            and type(done) is bool
            and type(info) is dict
            and ((type(reward) is float and math.isfinite(reward)) or type(reward) is int)
        ):
            return StepResult.checked(observation, float(reward), done, info)
    if type(value) is StepResult and _sound(value):  # the common case: no copy, no list
        problem = tool_results_problem(value.tool_results, calls)
        if problem is None:
            return value
        raise InvalidStepError(problem)
    problems = step_problems(value, calls)
    if problems:
        raise InvalidStepError(problems[0][1])
    if isinstance(value, StepResult):
        return StepResult(
            value.observation,
            float(value.reward),
            value.done,
            value.info,
            tuple(value.tool_results),
        )
    observation, reward, done, info = value
    return StepResult(observation, float(reward), done, info)


def _sound(value: StepResult) -> bool:
    reward = value.reward
    return (
        type(reward) is float
        and math.isfinite(reward)
        and type(value.done) is bool
        and type(value.observation) is str
        and type(value.info) is dict
        and type(value.tool_results) is tuple
    )


def tool_results_problem(results: Any, calls: Sequence[ToolCall] | None = ()) -> str | None:
    """Why `results` do not answer `calls` one to one (each call one result, by its id and
    tool name, nothing else), or None; `calls` None: only their types are checked."""
    if isinstance(results, (str, bytes)) or not isinstance(results, (tuple, list)):
        return f"step()'s tool_results must be a list, got {short_repr(results)}"
    for index, result in enumerate(results):
        if not isinstance(result, ToolResult):
            return f"step()'s tool_results[{index}] must be a ToolResult, got {short_repr(result)}"
    if calls is None:
        return None
    names = {call.id: call.name for call in calls}
    answered: set[str] = set()
    for result in results:
        wanted = names.get(result.tool_call_id)
        if wanted == result.name and result.tool_call_id not in answered:  # the common case
            answered.add(result.tool_call_id)
            continue
        label = printable(repr(result.tool_call_id), 100)
        if wanted is None:
            return f"step() answered a tool call {label}, but there is no call {label}"
        if result.tool_call_id in answered:
            return f"step() gave two results for call {label}"
        return (
            f"step()'s result for call {label}: call {label} is to tool "
            f"{printable(repr(wanted), 100)}, not {printable(repr(result.name), 100)}"
        )
    for call in calls:
        if call.id not in answered:
            return (
                f"step() gave no result for call {printable(repr(call.id), 100)} "
                f"(tool {printable(repr(call.name), 100)}): answer every call, an error included"
            )
    return None


def as_step_result(value: Any, calls: Sequence[ToolCall] | None = None) -> StepResult:
    """`value`, what `step` returned, as a checked StepResult; with `calls` (the reply's tool
    calls) its results must answer them one to one. Raises InvalidStepError naming the first
    thing wrong: that is the env's bug to fix. (The public form of `checked_step`.)"""
    return checked_step(value, calls)


def _kind(value: Any) -> str:
    return type(value).__name__
