"""The model's newest reply as text, from the `messages` an env's `step` receives.

Every env reads its reply the same way, so they agree on the odd shapes ms-swift and other
callers pass: a list of chat messages (the last is the reply), a bare string, content as a
string, None, or a list of parts (`{"type": "text", "text": ...}`; images and other parts are
skipped). A last message whose role is not "assistant" is no reply. Never raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
