"""Untrusted text made visible on a terminal: each escape marked dim in a rich Text.

What is escaped, and why, is the library's (`report.visible`, which the HTML report uses too), so a
reply shows the same on a page and on a terminal; its names are here as well for the command's
views (`visible.brief`, `visible.plain`).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ..report.visible import HIDDEN, blank_label, brief, escape_char, html, pieces, plain

__all__ = [
    "HIDDEN",
    "MARK_STYLE",
    "blank_label",
    "block",
    "brief",
    "escape_char",
    "html",
    "pieces",
    "plain",
    "rich",
]

MARK_STYLE = "dim"
"""How escapes stand apart from the text around them on a terminal."""


def rich(text: str, style: str = "") -> Text:
    """`text` as a rich Text: never read as markup, escapes styled apart from the rest."""
    shown = Text(style=style)
    for piece, escaped in pieces(text):
        shown.append(piece, MARK_STYLE if escaped else None)
    return shown


def block(value: Any, style: str = "") -> Text:
    """A whole reply, observation or prompt: escaped, or a dim label when it shows as nothing."""
    if value is None:
        return Text("(none)", style="dim italic")
    text = value if isinstance(value, str) else brief(value, 10_000)
    label = blank_label(text)
    return Text(label, style="dim italic") if label else rich(text, style)
