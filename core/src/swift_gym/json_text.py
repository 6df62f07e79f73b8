"""JSON in and out of the commands, safe for whatever a dataset or a model holds.

In: nesting is bounded (`MAX_DEPTH`), so neither the parser nor anything that walks a row later
(pydantic, repr, json.dumps) can hit Python's recursion limit. Out: text is UTF-8 as written,
except lone surrogates (valid in JSON as `\\ud800`, not encodable in UTF-8), which stay escaped;
`strict` output (`--json`) has no NaN or Infinity, which strict parsers refuse, and values JSON
cannot hold become strings.

Every str reads back exactly, even a lone high surrogate followed by a lone low one (a model
can write any code points): JSON reads `\\ud83d\\ude00` as the one character they encode
together. So a high surrogate is escaped in lower case and a low one with its `D` and the digit
after it in upper case (`\\ud83d\\uDE00`), a spelling no JSON writer uses for a real pair
(they write the character, or both halves in one case), and `loads` reads that spelling as two
characters. Any other JSON reader reads it as the character the pair encodes, as JSON defines
it. Escaping runs at C speed (see `_escaped`), never a Python call per character.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from .errors import short_repr

MAX_DEPTH = 100
"""Arrays and objects nested deeper than this are refused: no env config needs it."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPES = {
    code: f"\\u{code:04x}" if code < 0xDC00 else f"\\uD{code >> 8 & 0xF:X}{code & 0xFF:02x}"
    for code in range(0xD800, 0xE000)
}
"""Each surrogate's escape: a high one in lower case (`\\ud83d`), a low one with its `D` and
the digit after it in upper case (`\\uDE00`, `\\uDCa0`)."""
_LOW_ESCAPES = tuple((f"\\ud{digit}".encode(), f"\\uD{digit.upper()}".encode()) for digit in "cdef")
_ESCAPE = "swift_gym.json_text.surrogates"
_SPLIT_PAIR = re.compile(r"(?<!\\)((?:\\\\)*\\ud[89ab][0-9a-fA-F]{2})(?=\\uD[C-F][0-9a-fA-F]{2})")
"""Where our own escape of a lone high surrogate is followed by our escape of a lone low one
(an escape: after an even number of backslashes, none of them escaped)."""
_ESCAPED = re.compile(r"\\u([0-9a-fA-F]{4})")


def _escape_surrogates(error: UnicodeError) -> tuple[str, int]:
    """The UTF-8 codec's error handler: a run of surrogates as their escapes."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return error.object[error.start : error.end].translate(_ESCAPES), error.end


codecs.register_error(_ESCAPE, _escape_surrogates)


class TooDeepError(ValueError):
    """JSON nested deeper than `MAX_DEPTH`."""

    def __init__(self) -> None:
        super().__init__(f"nested more than {MAX_DEPTH} levels deep")


def loads(data: str | bytes) -> Any:
    """`json.loads`, refusing (TooDeepError) nesting deeper than `MAX_DEPTH`, reading lone
    surrogates as `dumps` writes them (see the module docstring)."""
    separator = None
    if (b"\\uD" in data) if isinstance(data, bytes) else ("\\uD" in data):
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        if _SPLIT_PAIR.search(text):
            separator = _unused_character(text)
            data = _SPLIT_PAIR.sub(lambda match: match.group(1) + separator, text)
    try:
        value = json.loads(data)
    except RecursionError:
        raise TooDeepError() from None
    if _openings(data) > MAX_DEPTH and deeper_than(value, MAX_DEPTH):
        raise TooDeepError()
    return value if separator is None else _without(value, separator)


def _unused_character(text: str) -> str:
    """A character that `text` holds neither as itself nor as an escape: put between two
    escapes it keeps JSON from joining them, and removed after, it takes nothing from the data."""
    used = set(text) | {chr(int(code, 16)) for code in _ESCAPED.findall(text)}
    code = 0xE000  # the private use area, then on
    while chr(code) in used:
        code += 1
    return chr(code)


def _without(value: Any, separator: str) -> Any:
    """`value` with `separator` taken out of every str, keys too (nested at most `MAX_DEPTH`)."""
    if isinstance(value, str):
        return value.replace(separator, "")
    if isinstance(value, list):
        return [_without(item, separator) for item in value]
    if isinstance(value, dict):
        return {
            key.replace(separator, ""): _without(item, separator) for key, item in value.items()
        }
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
    text = _json(value, indent, strict)
    if _SURROGATE.search(text) is None:
        return text
    return _escaped(text).decode("utf-8")


def encode(value: Any) -> bytes:
    """`dumps(value)` as UTF-8, made in one pass."""
    return _escaped(_json(value, None, False))


def _escaped(text: str) -> bytes:
    """JSON `text` as UTF-8, each surrogate escaped as `_ESCAPES` says, at C speed: the codec's
    backslashreplace escapes them all in lower case, then the low ones get their upper case. That
    needs every `\\ud` in the bytes to be an escape, so text holding a backslash before a `u`
    (written `\\\\u`) takes the error handler instead, one call per run of surrogates."""
    if "\\\\u" in text:
        return text.encode("utf-8", _ESCAPE)
    data = text.encode("utf-8", "backslashreplace")
    for lower, upper in _LOW_ESCAPES:
        data = data.replace(lower, upper)
    return data


def _json(value: Any, indent: int | None, strict: bool) -> str:
    """`value` as JSON text, lone surrogates still in it."""
    if strict:
        value = _plain(value, 0, strict)
    try:
        return json.dumps(
            value, ensure_ascii=False, indent=indent, default=_printable, allow_nan=not strict
        )
    except (RecursionError, ValueError, TypeError):  # too deep, circular, or a key JSON refuses
        return json.dumps(
            _plain(value, 0, strict), ensure_ascii=False, indent=indent, default=_printable
        )


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
    return _printable(value)


def _key(key: Any) -> str:
    return key if isinstance(key, str) else _printable(key)


def _printable(value: Any) -> str:
    """`str(value)`, or a placeholder naming its type when its `__str__` raises: the value
    came from an env or a plugin, and writing it must not fail what it is part of."""
    try:
        return str(value)
    except Exception:
        return f"<unprintable {type(value).__name__}>"
