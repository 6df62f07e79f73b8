r"""Untrusted text made visible: what models, datasets and env packages wrote, safe to show.

A model's reply may hold escape sequences that clear the screen or retitle the window
(`\x1b[2J`, `\x1b]0;...\x07`), C1 controls some terminals obey (`\x9b` is a CSI), bidi
overrides that reorder what is shown (U+202E), zero-width and other invisible characters that
hide why a reply was not parsed, and lone surrogates no encoder accepts. Printed as they are,
they act instead of being seen. Here each becomes its Python escape (`\x1b`, `\u202e`,
`\ud800`), kept apart so each view can mark it (a span in HTML here; dim on terminals, in
`cli.visible`); newlines and tabs stay, so multi-line replies read as written. A backslash the
text itself holds is shown as it is: the mark tells the two apart. Zero-width joiners are
escaped too, so an emoji sequence shows as its parts: a hidden character costs more than a
plainer emoji.

`brief` turns any value (an info dict, a number, a deep list) into one short line, bounded in
length and depth whatever the value holds; `TOOLS_SHOWN` and its kin bound a tool episode
alike on the page and on the terminal.

The report's own module, since the page is its first user; the command's terminal views
(`cli.visible`, `cli.transcript`) take the same rules from here, so a text is escaped alike in
both.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from html import escape as html_escape
from typing import Any

HIDDEN = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 controls but tab and newline, DEL, C1 controls
    r"\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180e"
    r"\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    r"\ud800-\udfff"  # lone surrogates
    r"\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    r"\U000e0000-\U000e0fff]+"  # tags and variation selectors: invisible, used to smuggle text
)
"""Runs of characters shown escaped: every control (Unicode category Cc) but tab and newline,
every format character (Cf: bidi controls, zero-width spaces and joiners, soft hyphen, BOM),
surrogates (Cs), line and paragraph separators (Zl, Zp), and the blank Hangul fillers."""


def escape_char(char: str) -> str:
    """`char` as Python writes it in a string literal: `\\r`, `\\x1b`, `\\u202e`, `\\U000e0041`."""
    if char == "\r":
        return "\\r"
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def pieces(text: str) -> Iterator[tuple[str, bool]]:
    """`text` cut into (piece, escaped) pairs: plain text as it is, hidden runs escaped."""
    at = 0
    for match in HIDDEN.finditer(text):
        if match.start() > at:
            yield text[at : match.start()], False
        yield "".join(map(escape_char, match.group())), True
        at = match.end()
    if at < len(text):
        yield text[at:], False


def plain(text: str) -> str:
    """`text` with every hidden character escaped, unmarked: for HTML attributes and titles."""
    return "".join(piece for piece, _ in pieces(text))


def html(text: str) -> str:
    """`text` for an HTML page: HTML-escaped, each escape in a `<span class="esc">`."""
    return "".join(
        f'<span class="esc">{html_escape(piece)}</span>' if escaped else html_escape(piece)
        for piece, escaped in pieces(text)
    )


def blank_label(text: str) -> str | None:
    """What to show for a text a reader would see as nothing; None when it shows itself.

    `(empty)`, `(3 spaces)`, or `(whitespace only: " \\n\\t")` with each character spelled.
    """
    if text == "":
        return "(empty)"
    if not text.isspace():
        return None
    if not text.strip(" "):
        return f"({len(text)} space{'' if len(text) == 1 else 's'})"
    spelled = "".join({" ": " ", "\n": "\\n", "\t": "\\t"}.get(c) or escape_char(c) for c in text)
    return f'(whitespace only: "{spelled}")'


TOOLS_SHOWN = 40
"""Tools an offer shows at most, before `… N more tools`."""
CALLS_SHOWN = 20
"""Calls (and results) of one turn shown at most, before `… N more calls`."""
ARGUMENTS_SHOWN = 1000
"""Characters of a call's arguments shown at most."""


def listed(value: Any) -> list[Any]:
    """A record's list as it is; a value that should have been one, as a list of itself."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def plural(count: Any, noun: str) -> str:
    """`1 turn`, `2 turns`, `0 turns`; a count that is not a number is shown as it is."""
    return f"{brief(count, 20)} {noun}{'' if count == 1 else 's'}"


class _Full(Exception):
    """The line has reached its length: stop walking the value."""


def brief(value: Any, limit: int = 60, depth: int = 6) -> str:
    """`value` in at most `limit` characters (then `…`), compact JSON-like: `{a:1,b:[1,2]}`.

    A string at the top is shown as it is; inside containers strings are quoted. Nesting deeper
    than `depth` shows as `…`. Walks only as much of the value as fits, so a 50 MB string or a
    thousand-level list costs no more than a short one. Escape the result (`rich`, `html`)
    before showing it: it keeps what the value holds.
    """
    out: list[str] = []
    room = [limit]

    def put(text: str) -> None:
        if len(text) > room[0]:
            out.append(text[: room[0]])
            raise _Full
        out.append(text)
        room[0] -= len(text)

    def walk(item: Any, level: int) -> None:
        if isinstance(item, str):
            put(item[: room[0] + 1] if level == 0 else _quoted(item[: room[0] + 1]))
        elif item is None or isinstance(item, bool):
            put({None: "null", True: "true", False: "false"}[item])
        elif isinstance(item, (int, float)):
            put(_number(item))
        elif level >= depth:
            put("…")
        elif isinstance(item, Mapping):
            put("{")
            for k, (key, sub) in enumerate(item.items()):
                put("," if k else "")
                put(key if isinstance(key, str) and key.isidentifier() else _quoted(str(key)))
                put(":")
                walk(sub, level + 1)
            put("}")
        elif isinstance(item, (list, tuple)):
            put("[")
            for k, sub in enumerate(item):
                put("," if k else "")
                walk(sub, level + 1)
            put("]")
        else:
            try:
                text = str(item)
            except Exception:  # an env's odd object: say what it is
                text = f"<{type(item).__name__}>"
            put(text[: room[0] + 1])

    try:
        walk(value, 0)
    except _Full:
        return "".join(out) + "…"
    return "".join(out)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(value: float) -> str:
    """Integers as they are; finite floats short (`0`, `0.25`, `1e-06`); nan and inf by name."""
    if isinstance(value, float):
        return f"{value:g}" if math.isfinite(value) else str(value)
    try:
        return str(value)
    except ValueError:  # more digits than Python converts
        return f"<{value.bit_length()}-bit integer>"
