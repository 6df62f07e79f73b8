"""`swift_gym.cli.visible`: which characters are escaped, blank labels, bounded `brief`."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest

from swift_gym.cli import visible

ESCAPED_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def test_every_control_format_and_surrogate_character_is_escaped() -> None:
    # Checked against this Python's Unicode database, so a new format character is noticed.
    missed = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ESCAPED_CATEGORIES
        and chr(code) not in "\n\t"
        and not visible.HIDDEN.fullmatch(chr(code))
    ]
    assert missed == []


@pytest.mark.parametrize(
    "text", ["a", " ", "\n", "\t", "é", "中文", "😀", "[bold]", "\\x1b", "\u00a0", "\u0131"]
)
def test_ordinary_text_newlines_and_tabs_are_left_alone(text: str) -> None:
    assert visible.plain(text) == text
    assert list(visible.pieces(text)) == [(text, False)]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J", r"\x1b[2J"),
        ("\x1b]0;pwned\x07", r"\x1b]0;pwned\x07"),
        ("a\x00b\x7fc\x9bd", r"a\x00b\x7fc\x9bd"),
        ("\r\n", "\\r\n"),
        ("\u202egnp.exe", r"\u202egnp.exe"),
        ("u\u200bp", r"u\u200bp"),
        ("\ufeff", r"\ufeff"),
        ("\ud800", r"\ud800"),
        ("\U000e0041", r"\U000e0041"),
        ("\u2028", r"\u2028"),
    ],
)
def test_hidden_characters_become_python_escapes(text: str, shown: str) -> None:
    assert visible.plain(text) == shown
    shown.encode("utf-8")  # whatever came in, what goes out encodes


def test_escapes_are_marked_apart_on_terminals_and_pages() -> None:
    text = visible.rich("a\x1bb", style="bold")
    assert text.plain == r"a\x1bb"
    assert [(s.start, s.end, str(s.style)) for s in text.spans] == [(1, 5, visible.MARK_STYLE)]
    assert visible.html('<b>&"\x1b') == '&lt;b&gt;&amp;&quot;<span class="esc">\\x1b</span>'


def test_rich_text_is_never_markup() -> None:
    assert visible.rich("[bold red]x[/bold red]").plain == "[bold red]x[/bold red]"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("", "(empty)"),
        (" ", "(1 space)"),
        ("   ", "(3 spaces)"),
        (" \n\t", r'(whitespace only: " \n\t")'),
        ("\u3000\x1c", r'(whitespace only: "\u3000\x1c")'),
        ("a ", None),
        ("\u200b", None),  # not whitespace: shown escaped instead
    ],
)
def test_blank_texts_get_a_label(text: str, label: str | None) -> None:
    assert visible.blank_label(text) == label


def test_block_labels_blank_and_missing_texts() -> None:
    assert visible.block("  ").plain == "(2 spaces)"
    assert visible.block(None).plain == "(none)"
    assert visible.block(["not", "text"]).plain == '["not","text"]'


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ({"a": [1, 2, {"b": "x y"}], "c d": 0.0, "e": None}, '{a:[1,2,{b:"x y"}],"c d":0,e:null}'),
        (True, "true"),
        (0.25, "0.25"),
        (float("nan"), "nan"),
        ("top level text", "top level text"),
        ("x" * 100, "x" * 60 + "…"),
        (json.loads("[" * 800 + "]" * 800), "[[[[[[…]]]]]]"),
        (object, "<class 'object'>"),
    ],
)
def test_brief_is_compact_and_bounded(value: object, shown: str) -> None:
    assert visible.brief(value) == shown


def test_brief_walks_only_what_fits() -> None:
    huge = {f"k{k}": "v" * 1000 for k in range(100_000)}
    assert len(visible.brief(huge, 50)) == 51
