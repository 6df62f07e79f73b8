"""The model's newest reply as text, from the `messages` an env's `step` receives.

Every env reads its reply the same way, so they agree on the odd shapes ms-swift and other
callers pass: a list of chat messages (the last is the reply), a bare string, content as a
string, None, or a list of parts (`{"type": "text", "text": ...}`; images and other parts are
skipped). A last message whose role is not "assistant" is no reply. Never raises.

`tool_calls` reads the same reply's tool calls, by the same rules, into `ToolCall`s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .tools.toolset import ToolCall

MAX_TOOL_CALLS = 64
"""Calls of one reply read at most; later ones are dropped (and get no result)."""
MAX_CALL_ID_CHARS = 256
"""A call id longer than this (or empty, not text, or with control characters or lone
surrogates), or one an earlier call of the reply took, is replaced by `call_<index>` (made unique),
so every result can be tied to its call."""


def reply_text(messages: Any) -> str:
    """The text of the newest assistant reply in `messages`; "" when there is none."""
    if type(messages) is list and messages:  # the usual shape, checked first: it is per step
        last = messages[-1]
        if type(last) is dict:
            content = last.get("content")
            if type(content) is str and last.get("role", "assistant") == "assistant":
                return content
    if isinstance(messages, str):
        return messages
    if not isinstance(messages, (list, tuple)) or not messages:
        return ""
    last = messages[-1]
    if isinstance(last, str):
        return last
    if not isinstance(last, Mapping) or last.get("role", "assistant") != "assistant":
        return ""
    return content_text(last.get("content"))


def content_text(content: Any) -> str:
    """The text of one message's `content`: a string, or the text parts of a list, joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        return ""
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and part.get("type", "text") == "text":
            text = part.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "\n".join(texts)


def tool_calls(messages: Any) -> list[ToolCall]:
    """The tool calls of the newest assistant reply in `messages`; [] when there are none.

    `messages` is what `step` receives (the reply is the last message), or one message. A
    message and each call may be a dict or an object with attributes: OpenAI-shaped dicts,
    ms-swift's `ChatCompletionMessageToolCall` dataclasses, the OpenAI SDK's pydantic models.
    A call without `function` is read as the function itself (as ms-swift reads it); a custom
    call's `custom.input` is its arguments. Arguments given as JSON values are encoded to text.
    Every item of the list is a call, so each gets a result: what cannot be read becomes "".
    At most `MAX_TOOL_CALLS`; ids unique (see `MAX_CALL_ID_CHARS`). Never raises.
    """
    if isinstance(messages, (list, tuple)):
        if not messages:
            return []
        messages = messages[-1]
    if isinstance(messages, str) or _field(messages, "role") not in ("assistant", None):
        return []
    raw = _field(messages, "tool_calls")
    if not isinstance(raw, (list, tuple)):
        return []
    calls = []
    seen: set[str] = set()
    for index, item in enumerate(raw[:MAX_TOOL_CALLS]):
        call = _tool_call(item, index, seen)
        seen.add(call.id)
        calls.append(call)
    return calls


def _tool_call(item: Any, index: int, seen: set[str]) -> ToolCall:
    function, arguments_key = _field(item, "function"), "arguments"
    if function is None:
        custom = _field(item, "custom")  # an OpenAI custom tool call: free text as its input
        function, arguments_key = (item, "arguments") if custom is None else (custom, "input")
    # (no function field and not custom: the call is the function, as ms-swift reads it)
    name = _field(function, "name")
    call_id = _field(item, "id")
    if (
        not isinstance(call_id, str)
        or not 0 < len(call_id) <= MAX_CALL_ID_CHARS
        or not call_id.isprintable()
        or call_id in seen
    ):
        call_id = f"call_{index}"
    suffix = 0
    while call_id in seen:  # the model may itself have written an id of that form
        suffix += 1
        call_id = f"call_{index}_{suffix}"
    return ToolCall(
        id=call_id,
        name=name if isinstance(name, str) else "",
        arguments=_arguments(_field(function, arguments_key)),
    )


def _arguments(value: Any) -> str:
    """The arguments as text: a string as is, None as "", a JSON value encoded (as ms-swift's
    `Function` does), anything else as text that is not JSON (so the call gets an error)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return f"<{type(value).__name__}, not JSON>"


def _field(value: Any, name: str) -> Any:
    """`value[name]` of a mapping, else its attribute `name`; None when absent or unreadable."""
    try:
        if isinstance(value, Mapping):
            return value.get(name)
        return getattr(value, name, None)
    except Exception:  # a hostile or broken object: no field
        return None
