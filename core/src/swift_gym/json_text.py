"""JSON in and out of the commands, safe for whatever a dataset or a model holds.

In: nesting is bounded (`MAX_DEPTH`), so neither the parser nor anything that walks a row later
(pydantic, repr, json.dumps) can hit Python's recursion limit. Out: text is UTF-8 as written,
except lone surrogates (valid in JSON as `\\ud800`, not encodable in UTF-8), which stay escaped,
so a record reads back exactly; `strict` output (`--json`) has no NaN or Infinity, which strict
parsers refuse, and values JSON cannot hold become strings.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .errors import short_repr

MAX_DEPTH = 100
"""Arrays and objects nested deeper than this are refused: no env config needs it."""
_SURROGATE = re.compile("[\ud800-\udfff]")


class TooDeepError(ValueError):
    """JSON nested deeper than `MAX_DEPTH`."""

    def __init__(self) -> None:
        super().__init__(f"nested more than {MAX_DEPTH} levels deep")


def loads(data: str | bytes) -> Any:
    """`json.loads`, refusing (TooDeepError) nesting deeper than `MAX_DEPTH`."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise TooDeepError() from None
    if _openings(data) > MAX_DEPTH and deeper_than(value, MAX_DEPTH):
        raise TooDeepError()
    return value


def _openings(data: str | bytes) -> int:
    """How many `[` and `{` the text holds: no value in it nests deeper (a count at C speed
    that spares most rows the walk)."""
    if isinstance(data, str):
        return data.count("[") + data.count("{")
    return data.count(b"[") + data.count(b"{")


def deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and dicts in `value` nest deeper than `limit` (walked level by level,
    without recursion)."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below = []
        for item in level:
            for child in item.values() if isinstance(item, dict) else item:
                if isinstance(child, (dict, list)):
                    below.append(child)
        level = below
    return False


def dumps(value: Any, indent: int | None = None, strict: bool = False) -> str:
    """`value` as JSON text: see the module docstring for what `strict` adds."""
    if strict:
        value = _plain(value, 0, strict)
    try:
        text = json.dumps(
            value, ensure_ascii=False, indent=indent, default=_text, allow_nan=not strict
        )
    except (RecursionError, ValueError, TypeError):  # too deep, circular, or a key JSON refuses
        text = json.dumps(
            _plain(value, 0, strict), ensure_ascii=False, indent=indent, default=_text
        )
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _plain(value: Any, depth: int, strict: bool) -> Any:
    """`value` with str keys, nesting cut at `MAX_DEPTH` and (if strict) non-finite floats null."""
    if isinstance(value, float):
        return None if strict and not math.isfinite(value) else value
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if depth >= MAX_DEPTH:
        return short_repr(value)
    if isinstance(value, dict):
        return {_key(key): _plain(item, depth + 1, strict) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item, depth + 1, strict) for item in value]
    return _text(value)


def _key(key: Any) -> str:
    return key if isinstance(key, str) else _text(key)


def _text(value: Any) -> str:
    """`str(value)`, or a placeholder naming its type when its `__str__` raises: the value
    came from an env or a plugin, and writing it must not fail what it is part of."""
    try:
        return str(value)
    except Exception:
        return f"<unprintable {type(value).__name__}>"
