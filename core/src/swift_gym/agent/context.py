"""What an agent program's call sent, read against what the episode has shown so far.

The first call gives the system prompt (a leading system message) and the first observation
(the rest). Each later call is normally the previous context, the policy's reply, then the new
messages: tool messages answering the reply's calls (tool results) and user messages (the
observation). Anything else (a summarised history, a changed system prompt or tools, a call
left unanswered, a message of another role) is a rewrite: the episode then gives the caller
the program's messages as they are (`Turn.context`), so the model sees exactly them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..episode.layout import signature
from ..replies import content_text
from ..tools.toolset import ToolCall, ToolResult, ToolSet

UNANSWERED = "the agent program did not answer this call"


@dataclass(frozen=True)
class Turn:
    """What the caller shows the model for the program's new call.

    `observation` and `tool_results` extend the chat; when `context` is not None the program
    rewrote its history, and `context` is the whole chat to show instead (the results and the
    observation are then only what the record keeps).
    """

    observation: str
    tool_results: tuple[ToolResult, ...] = ()
    context: list[dict[str, Any]] | None = None


def first_turn(messages: list[Any]) -> tuple[str, str | None, list[dict[str, Any]] | None]:
    """(observation, system prompt, exact context or None) of the program's first call.

    A single user message after the system prompt is the observation. Several messages (a
    few-shot chat, more than one user message) are shown exactly (the context); the
    observation is then their text, each message after a line naming its role.
    """
    system = None
    rest = messages
    if rest and isinstance(rest[0], dict) and rest[0].get("role") in ("system", "developer"):
        system = content_text(rest[0].get("content"))
        rest = rest[1:]
    if len(rest) == 1 and isinstance(rest[0], dict) and rest[0].get("role") == "user":
        return content_text(rest[0].get("content")), system, None
    if not rest:
        return "", system, None
    return labelled_text(rest), system, [dict(m) for m in messages if isinstance(m, dict)]


def labelled_text(messages: Sequence[Any]) -> str:
    """The messages' text, each after a `[role]` line: how a record shows a context."""
    parts = []
    for message in messages:
        if isinstance(message, dict):
            parts.append(f"[{message.get('role')}]\n{content_text(message.get('content'))}")
    return "\n\n".join(parts)


def next_turn(
    previous: list[Any],
    reply: dict[str, Any],
    calls: Sequence[ToolCall],
    messages: list[Any],
    tools: ToolSet | None = None,
) -> Turn:
    """The Turn of a later call: `messages` read against `previous` (the last call's messages)
    and the policy's `reply` to it, whose tool calls are `calls`.

    A tool message has no error flag, so with `tools` (those the reply's call was offered)
    the result of a call they refuse (an unknown tool, arguments that do not match) is marked
    `is_error`, whatever the program answered: evaluation counts it as a refused call."""
    size = len(previous)
    extends = (
        len(messages) > size
        and signature(messages[size]) == signature(reply)
        and (  # the SDK sends the same objects the same way: equal JSON, compared in C
            messages[:size] == previous
            or all(signature(a) == signature(b) for a, b in zip(previous, messages, strict=False))
        )
    )
    tail = messages[size + 1 :] if extends else _after_last_assistant(messages)
    answers: dict[str, str] = {}
    observations: list[str] = []
    clean = extends
    for message in tail:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool" and not observations:
            call_id = message.get("tool_call_id")
            if call_id in answers or not any(call.id == call_id for call in calls):
                clean = False
            else:
                answers[call_id] = content_text(message.get("content"))
        elif role == "user":
            observations.append(content_text(message.get("content")))
        else:
            clean = False
    results = []
    for call in calls:
        if call.id in answers:
            refused = tools is not None and isinstance(tools.check(call), ToolResult)
            results.append(ToolResult.for_call(call, answers[call.id], refused))
        else:
            clean = False
            results.append(ToolResult.error(call, UNANSWERED))
    observation = "\n\n".join(observations)
    if clean:
        return Turn(observation, tuple(results))
    return Turn(observation, tuple(results), [dict(m) for m in messages if isinstance(m, dict)])


def _after_last_assistant(messages: list[Any]) -> list[Any]:
    """The messages after the last assistant message (after the system prompt if none)."""
    start = 0
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant" or (start == index and role in ("system", "developer")):
            start = index + 1
    return messages[start:]
