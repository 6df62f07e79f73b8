"""What `step` returns: the text 4-tuple, or a `StepResult` that also answers tool calls.

A text env returns `(observation, reward, done, info)`, as ms-swift's own envs do. An env that
offers tools returns a `StepResult` holding a `ToolResult` per call the reply made, and text too
if it has something to say. `as_step_result` turns either into one checked `StepResult`, for the
schedulers and the evaluator to read one shape.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidStepError, printable, short_repr
from .tools.toolset import ToolCall, ToolResult


@dataclass(frozen=True)
class StepResult:
    """One step's outcome. `observation` is text for the model (a user message; may be "");
    `tool_results` answer the reply's tool calls, one per call, in any order.

    It unpacks like the 4-tuple, `observation, reward, done, info = result`, so a scheduler that
    knows only text (ms-swift's `GYMScheduler`) still plays it: the tool results then come as
    text before the observation, each in `<tool_response>` tags (how ms-swift's hermes agent
    template shows a tool message to the model).
    """

    observation: str = ""
    reward: float = 0.0
    done: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    tool_results: Sequence[ToolResult] = ()

    def __post_init__(self) -> None:
        if isinstance(self.tool_results, list):
            object.__setattr__(self, "tool_results", tuple(self.tool_results))

    def __iter__(self) -> Iterator[Any]:
        return iter((self.text(), self.reward, self.done, self.info))

    def text(self) -> str:
        """The observation with the tool results before it, for a text-only scheduler."""
        parts = [f"<tool_response>\n{r.content}\n</tool_response>" for r in self.tool_results]
        if self.observation or not parts:
            parts.append(self.observation)
        return "\n".join(parts)


def as_step_result(value: Any, calls: Sequence[ToolCall] | None = None) -> StepResult:
    """`value`, what `step` returned, as a checked StepResult (the reward a float).

    With `calls` (the reply's tool calls), the results must answer them one to one: each call
    exactly one result with its id and tool name, and no result for a call that was not made.
    Raises InvalidStepError naming the first thing wrong: that is the env's bug to fix.
    """
    if isinstance(value, StepResult):
        observation, reward, done, info = value.observation, value.reward, value.done, value.info
        results = value.tool_results
        if (
            type(reward) is float
            and type(done) is bool
            and type(observation) is str
            and type(info) is dict
            and type(results) is tuple
        ):  # already the checked shape (a frozen dataclass): no copy, only the results' check
            check_tool_results(results, calls)
            return value
    elif isinstance(value, (tuple, list)) and len(value) == 4:
        observation, reward, done, info = value
        results = ()
    else:
        raise InvalidStepError(
            "step() must return (observation, reward, done, info) or a StepResult, "
            f"got {short_repr(value)}"
        )
    if not isinstance(observation, str):
        raise InvalidStepError(f"step()'s observation must be a str, got {short_repr(observation)}")
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        raise InvalidStepError(f"step()'s reward must be a number, got {short_repr(reward)}")
    if not isinstance(done, bool):
        raise InvalidStepError(f"step()'s done must be a bool, got {short_repr(done)}")
    if not isinstance(info, dict):
        raise InvalidStepError(f"step()'s info must be a dict, got {short_repr(info)}")
    check_tool_results(results, calls)
    return StepResult(observation, float(reward), done, info, tuple(results))


def check_tool_results(results: Any, calls: Sequence[ToolCall] | None = None) -> None:
    """Raise InvalidStepError unless `results` is a list of ToolResults that, given `calls`,
    answers each call once, by its id and tool name, and nothing else."""
    if isinstance(results, (str, bytes)) or not isinstance(results, (tuple, list)):
        raise InvalidStepError(f"step()'s tool_results must be a list, got {short_repr(results)}")
    for index, result in enumerate(results):
        if not isinstance(result, ToolResult):
            raise InvalidStepError(
                f"step()'s tool_results[{index}] must be a ToolResult, got {short_repr(result)}"
            )
    if calls is None:
        return
    names = {call.id: call.name for call in calls}
    answered: set[str] = set()
    for result in results:
        wanted = names.get(result.tool_call_id)
        if wanted == result.name and result.tool_call_id not in answered:  # the common case
            answered.add(result.tool_call_id)
            continue
        label = printable(repr(result.tool_call_id), 100)
        if wanted is None:
            raise InvalidStepError(
                f"step() answered a tool call {label}, but there is no call {label}"
            )
        if result.tool_call_id in answered:
            raise InvalidStepError(f"step() gave two results for call {label}")
        if result.name != wanted:
            raise InvalidStepError(
                f"step()'s result for call {label}: call {label} is to tool "
                f"{printable(repr(wanted), 100)}, not {printable(repr(result.name), 100)}"
            )
        answered.add(result.tool_call_id)
    for call in calls:
        if call.id not in answered:
            raise InvalidStepError(
                f"step() gave no result for call {printable(repr(call.id), 100)} "
                f"(tool {printable(repr(call.name), 100)}): answer every call, an error included"
            )
