"""A tool turn's pieces in the chat and in a record, shared by every face.

The model's reply goes into the chat as one assistant message holding its calls (OpenAI's
shape); the env's answer comes back as one `{"role": "tool"}` message per result, in call order
(how a step's text joins them is `episode.layout`'s rule). A record keeps the calls as
`{"id", "name", "arguments"}` (arguments as the model wrote them) and the results as
`{"tool_call_id", "name", "content"}`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .toolset import ToolCall, ToolResult


def call_messages(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    """The calls as OpenAI's `tool_calls` of an assistant message."""
    return [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments},
        }
        for call in calls
    ]


def assistant_message(text: str, calls: Sequence[ToolCall]) -> dict[str, Any]:
    """The reply as the assistant message the env steps on: `{"role", "content"}`, and
    `tool_calls` when it made any."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = call_messages(calls)
    return message


def in_call_order(results: Sequence[ToolResult], calls: Sequence[ToolCall]) -> list[ToolResult]:
    """`results` in the order of the calls they answer."""
    if len(results) < 2:
        return list(results)
    order = {call.id: index for index, call in enumerate(calls)}
    return sorted(results, key=lambda r: order.get(r.tool_call_id, len(order)))


def tool_messages(results: Sequence[ToolResult]) -> list[dict[str, Any]]:
    """A `{"role": "tool"}` message per result, in the order given."""
    return [
        {"role": "tool", "tool_call_id": r.tool_call_id, "name": r.name, "content": r.content}
        for r in results
    ]


def call_record(call: ToolCall) -> dict[str, str]:
    """A call as a record keeps it."""
    return {"id": call.id, "name": call.name, "arguments": call.arguments}


def result_record(result: ToolResult) -> dict[str, str]:
    """A result as a record keeps it."""
    return {"tool_call_id": result.tool_call_id, "name": result.name, "content": result.content}
