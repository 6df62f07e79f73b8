"""The text of the model's newest reply, whatever shape `messages` has; never raises.

What a model writes is untrusted: None content, lists of parts, a non-list. Anything that is
not text reads as "" (which the game then refuses as an invalid move).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def reply_text(messages: Any) -> str:
    """The newest assistant reply in `messages` (a list of chat messages, or a bare string)."""
    if isinstance(messages, str):
        return messages
    if not isinstance(messages, (list, tuple)) or not messages:
        return ""
    last = messages[-1]
    if isinstance(last, str):
        return last
    if not isinstance(last, Mapping) or last.get("role", "assistant") != "assistant":
        return ""
    content = last.get("content")
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
