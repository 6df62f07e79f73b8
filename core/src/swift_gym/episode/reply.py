"""The model's reply as one typed value: its text and its tool calls, read once.

Whatever produced it (a policy's `str` or message, the engine's parsed choice in training, a
WebSocket action, a line typed in `play`), a reply becomes a `Reply` at the face's door; the
episode lays it out (`layout.assistant_message`) and records it from there, so its calls are
never parsed or serialised twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import SwiftGymError, short_repr
from ..replies import content_text, tool_calls
from ..tools.toolset import ToolCall
from ..tools.turns import assistant_message
from .layout import Message


class ReplyShapeError(SwiftGymError, ValueError):
    """A policy returned something that is neither text nor an assistant message."""


@dataclass(frozen=True)
class Reply:
    """What the model said: `text` (may be "") and its `calls` (none for a text reply)."""

    text: str = ""
    calls: tuple[ToolCall, ...] = ()

    def message(self) -> Message:
        """The assistant message the env steps on (with `tool_calls` when it made any)."""
        return assistant_message(self.text, self.calls)

    @classmethod
    def of(cls, value: Any, who: str = "the policy") -> Reply:
        """A policy's reply (a Reply, text, or an assistant message dict) as a Reply; raises
        ReplyShapeError, naming `who`, when it is none of these."""
        if type(value) is str:  # the common case, built without the frozen __setattr__s
            return text_reply(value)
        if isinstance(value, Reply):
            return value
        if isinstance(value, str):
            return cls(value)
        if not isinstance(value, Mapping):
            raise ReplyShapeError(
                f"{who} returned {type(value).__name__}, not str or an assistant message dict"
            )
        role = value.get("role", "assistant")
        content = value.get("content")
        raw_calls = value.get("tool_calls")
        problem = None
        if role != "assistant":
            problem = f"its role is {short_repr(role, 40)}, not 'assistant'"
        elif content is not None and not isinstance(content, (str, list)):
            problem = f"its content is {type(content).__name__}, not str"
        elif raw_calls is not None and not isinstance(raw_calls, (list, tuple)):
            problem = f"its tool_calls is {type(raw_calls).__name__}, not a list"
        if problem is not None:
            raise ReplyShapeError(f"{who} returned a message that is no assistant reply: {problem}")
        return cls(content_text(content), tuple(tool_calls(value)))

    @classmethod
    def read(cls, message: Any, with_calls: bool = True) -> Reply:
        """Any message-like value (a dict, ms-swift's choice message, an SDK model) as a
        Reply, by the rules of `replies`; never raises. `with_calls` False: text only (the
        engine parsed no calls for an env without tools)."""
        content = message.get("content") if isinstance(message, Mapping) else None
        if content is None and not isinstance(message, Mapping):
            content = getattr(message, "content", None)
        calls = tuple(tool_calls(message)) if with_calls else ()
        return cls(content_text(content), calls)


def text_reply(text: str) -> Reply:
    """`Reply(text)` for a plain text reply, made once per turn on every face: set in the
    instance's dict directly, as a frozen dataclass's own `__init__` does field by field."""
    reply = object.__new__(Reply)
    reply.__dict__.update(text=text, calls=())
    return reply
