"""`ChoiceTool`: an env's text actions offered as one function with one enum parameter.

Envs whose action is one name from a fixed list (a direction, hit or stick) or one integer in
bounds (a guessed number) offer it as a tool with `action_format: tool`. This module holds what
they share: the checked `ToolSet`, reading a reply (exactly one call to the tool, with arguments
that match; anything else is an invalid action, each call answered by an error result), and the
messages an oracle or a random policy sends.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..replies import tool_calls
from .toolset import ToolCall, ToolResult, ToolSet, function_tool
from .turns import assistant_message

NO_CALL = "the reply calls no tool"
CACHED_CALLS = 1024
"""Valid calls (tool name and argument text) each ChoiceTool remembers the value of; later
ones are checked every time. A model writes the same few argument texts over and over."""
CACHED_ARGUMENT_CHARS = 256
_MISSING = object()


@dataclass(frozen=True)
class Choice:
    """What one reply chose: `value` (None when the reply holds no valid call), the `call` that
    chose it, `errors` (an error result for each call made, when invalid) and `reason` (why it
    is invalid, one clause for the observation)."""

    value: Any = None
    call: ToolCall | None = None
    errors: tuple[ToolResult, ...] = ()
    reason: str = ""

    def answer(self, content: str) -> list[ToolResult]:
        """The step's tool results: `content` for the valid call, else the error results."""
        return (
            [ToolResult.for_call(self.call, content)]
            if self.call is not None
            else list(self.errors)
        )


class ChoiceTool:
    """One function, `name`, whose one required parameter, `parameter`, holds the action.

    `choices` (names) makes the parameter a string enum; `bounds` (low, high) an integer in
    them. Build one per env class or config (the schema is checked once, in `ToolSet`).
    """

    def __init__(
        self,
        name: str,
        parameter: str,
        description: str,
        *,
        choices: Sequence[str] | None = None,
        bounds: tuple[int, int] | None = None,
        label: str = "the env",
    ):
        if (choices is None) == (bounds is None):
            raise ValueError("give exactly one of choices and bounds")
        if choices is not None:
            spec: dict[str, Any] = {"type": "string", "enum": list(choices)}
        else:
            low, high = bounds  # type: ignore[misc]
            spec = {"type": "integer", "minimum": low, "maximum": high}
        self.name = name
        self.parameter = parameter
        self.choices = tuple(choices) if choices is not None else None
        self.bounds = bounds
        self.tools = ToolSet(
            [function_tool(name, description, {parameter: spec})],
            label,
        )
        if self.choices is not None:
            words = ", ".join(self.choices[:-1]) + " or " + self.choices[-1]
            if len(self.choices) == 1:
                words = self.choices[0]
        else:
            words = f"an integer from {bounds[0]} to {bounds[1]}"  # type: ignore[index]
        self.how = f"call {name} once, with {parameter} {words}"
        """The answer format as the prompt and the invalid hint say it."""
        self._values: dict[tuple[str, str], Any] = {}

    def read(self, messages: Any) -> Choice:
        """The choice of the newest reply in `messages`. Never raises."""
        calls = tool_calls(messages)
        if not calls:
            return Choice(reason=NO_CALL)
        if len(calls) > 1:
            reason = f"the reply makes {len(calls)} tool calls; make exactly one"
            text = f"{reason}. None of them was applied."
            return Choice(errors=tuple(ToolResult.error(c, text) for c in calls), reason=reason)
        call = calls[0]
        key = (call.name, call.arguments)
        value = self._values.get(key, _MISSING)  # the check is a pure function of the key
        if value is not _MISSING:
            return Choice(value=value, call=call)
        checked = self.tools.check(call)
        if isinstance(checked, ToolResult):
            return Choice(
                errors=(checked,), reason="the call was refused; its tool result says why"
            )
        value = checked[self.parameter]
        if len(call.arguments) <= CACHED_ARGUMENT_CHARS and len(self._values) < CACHED_CALLS:
            self._values[key] = value
        return Choice(value=value, call=call)

    def refuse(self, messages: Any, reason: str) -> list[ToolResult]:
        """An error result for each call of the reply (all refused for `reason`)."""
        return [ToolResult.error(call, reason) for call in tool_calls(messages)]

    def message(self, value: Any, content: str = "", call_id: str = "call_0") -> dict[str, Any]:
        """The assistant message that calls the tool with `value` (an oracle's reply)."""
        return message(content, [(call_id, self.name, json.dumps({self.parameter: value}))])

    def samples(self) -> list[dict[str, Any] | str]:
        """Replies for a random policy and the conformance kit: a call per valid value (at most
        a handful for a range), then invalid ones: a value out of the schema, arguments that
        are not JSON, an unknown tool, two calls, and text replies with no call."""
        if self.choices is not None:
            valid = list(self.choices)
            wrong: Any = "nowhere"
        else:
            low, high = self.bounds  # type: ignore[misc]
            valid = sorted({low, (low + high) // 2, high})
            wrong = high + 1
        first = valid[0]
        arguments = json.dumps({self.parameter: first})
        return [
            *(self.message(value) for value in valid),
            self.message(wrong),
            message("", [("call_0", self.name, "{" + self.parameter)]),
            message("", [("call_0", self.name + "_x", arguments)]),
            message("", [("call_0", self.name, arguments), ("call_1", self.name, arguments)]),
            message(f"I choose {first}.", []),
            f"I choose {first}.",
        ]


def message(content: str, calls: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    """An OpenAI-shaped assistant message with `calls` as (id, name, arguments)."""
    return assistant_message(content, [ToolCall(*call) for call in calls])
