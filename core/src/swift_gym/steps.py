"""What `step` returns: the text 4-tuple, or a `StepResult` that also answers tool calls.

A text env returns `(observation, reward, done, info)`, as ms-swift's own envs do. An env that
offers tools returns a `StepResult` holding a `ToolResult` per call the reply made, and text too
if it has something to say. `episode.checks.as_step_result` turns either into one checked
`StepResult`: the one check every face applies.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .tools.toolset import ToolResult


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

    @classmethod
    def checked(
        cls, observation: str, reward: float, done: bool, info: dict[str, Any]
    ) -> StepResult:
        """A text step's result from values already checked (`episode.checks`), built without
        the dataclass's per-field `__setattr__`: it is made once per step on every face."""
        result = object.__new__(cls)
        result.__dict__.update(
            observation=observation, reward=reward, done=done, info=info, tool_results=()
        )
        return result

    def __iter__(self) -> Iterator[Any]:
        return iter((self.text(), self.reward, self.done, self.info))

    def text(self) -> str:
        """The observation with the tool results before it, for a text-only scheduler."""
        parts = [f"<tool_response>\n{r.content}\n</tool_response>" for r in self.tool_results]
        if self.observation or not parts:
            parts.append(self.observation)
        return "\n".join(parts)
