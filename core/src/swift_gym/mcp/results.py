"""What the model reads of an MCP tool result: its content as text, bounded.

Text blocks are joined by newlines; an image, audio, a resource link or a binary resource is
named in one line (its type, MIME type, URI), never inlined; a result with no content but
structured content shows that as JSON. The text is cut at the server's `max_result_chars` with
a note, and lone surrogates are replaced (they break JSON encoders downstream).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..errors import printable


def result_text(result: Any, cap: int, clean: Callable[[str], str] | None = None) -> str:
    """The text of a `CallToolResult`, at most about `cap` characters; `clean` (the redaction
    of an error result) applies to the whole text, before it is cut."""
    parts = [_block_text(block) for block in result.content or ()]
    if not parts and result.structuredContent is not None:
        parts.append(json.dumps(result.structuredContent, ensure_ascii=False, default=str))
    text = "\n".join(parts) if parts else "(no output)"
    return bounded(clean(text) if clean is not None else text, cap)


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind} content: {printable(str(block.mimeType), 100)}, not shown]"
    if kind == "resource_link":
        return f"[resource link: {printable(str(block.uri), 300)}]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return text
        return f"[resource: {printable(str(resource.uri), 300)}, binary, not shown]"
    return f"[{printable(str(kind), 50)} content, not shown]"


def bounded(text: str, cap: int) -> str:
    """`text` cut at `cap` characters with a note saying how long it was; valid Unicode."""
    if len(text) > cap:
        text = f"{text[:cap]}\n(result cut: {len(text):,} characters in all, {cap:,} shown)"
    return text.encode("utf-8", "replace").decode("utf-8")
