"""The chat the model sees: how a reply and a step's answer are laid out as messages.

One layout for every face (training, evaluation, `play`, `serve`, the conformance kit), so a
policy is evaluated on the chat it trained on:

- a reply is one assistant message, with OpenAI's `tool_calls` when it made calls;
- a text step's observation is one user message (even when empty, as ms-swift's gym scheduler
  sends it);
- a tool step's results are one `{"role": "tool"}` message each, in call order; text the env
  also gave goes at the end of the last tool message, after a blank line, because ms-swift's
  templates pair each query with one assistant turn and refuse a user message after tool
  messages. A tool step without results lays out its text as a user message (none if empty).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..replies import content_text, tool_calls
from ..steps import StepResult
from ..tools.toolset import ToolCall
from ..tools.turns import in_call_order, tool_messages

Message = dict[str, Any]


def answer_messages(step: StepResult, calls: Sequence[ToolCall], tool_turn: bool) -> list[Message]:
    """What the env's answer adds to the chat (see the module docstring). `tool_turn`: the
    env offers tools (or answered calls), so an empty text adds nothing."""
    if not tool_turn and not step.tool_results:
        return [{"role": "user", "content": step.observation}]
    messages = tool_messages(in_call_order(step.tool_results, calls))
    text = step.observation
    if messages and text:
        last = messages[-1]
        last["content"] = f"{last['content']}\n\n{text}" if last["content"] else text
    elif text:
        messages.append({"role": "user", "content": text})
    return messages


def signature(message: Any) -> tuple[Any, ...]:
    """What makes two messages the same to the model: role, text, the call they answer, calls
    (to find a policy's reply again in a chat an env replaced)."""
    if not isinstance(message, dict):
        return ("?", repr(message)[:200])
    calls = tuple(tool_calls(message)) if message.get("tool_calls") else ()
    return (
        message.get("role"),
        content_text(message.get("content")),
        message.get("tool_call_id"),
        calls,
    )
