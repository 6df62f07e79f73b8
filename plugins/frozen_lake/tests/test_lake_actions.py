"""Reply extraction and action parsing: every mode, odd inputs, and linear time on huge replies."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swift_gym_frozen_lake import parse_action
from swift_gym_frozen_lake.actions import PARSING_MODES, explain_invalid, reply_text

FIRST, LAST, SINGLE, EXACT, UPSTREAM = "first_tag", "last_tag", "single_tag", "exact", "upstream"

# text, then the expected action under first_tag, last_tag, single_tag, upstream
TABLE = [
    ("<action>up</action>", "up", "up", "up", "up"),
    ("<action>down</action>", "down", "down", "down", "down"),
    ("<action>left</action>", "left", "left", "left", "left"),
    ("<action>right</action>", "right", "right", "right", "right"),
    ("< Action > Up </action>", "up", "up", "up", "up"),
    ("<ACTION>RIGHT</ACTION>", "right", "right", "right", "right"),
    ("<action>\n  left \t</action>", "left", "left", "left", "left"),
    ("<action >down</ action >", "down", "down", "down", "down"),
    ("I think <action>left</action> is best.", "left", "left", "left", "left"),
    ("set up", None, None, None, "up"),
    ("go up, then maybe left", None, None, None, "left"),
    ("Upward is wrong; Down it is.", None, None, None, "down"),
    ("setup and upstream are not words", None, None, None, None),
    ("", None, None, None, None),
    ("no direction at all", None, None, None, None),
    ("<action>jump</action>", None, None, None, None),
    ("<action>move up</action>", None, None, None, "up"),
    ("<action></action>", None, None, None, None),
    ("<action>up", None, None, None, "up"),
    ("<action>up</action><action>left</action>", "up", "left", None, "up"),
    ("<action>up</action> <action>up</action>", "up", "up", None, "up"),
    ("<action>jump</action><action>left</action>", None, "left", None, "left"),
    ("<action>left</action><action>jump</action>", "left", None, None, "left"),
    ("down <action>up</action> left", "up", "up", "up", "up"),
    ("<answer>up</answer>", None, None, None, "up"),
    ("<action><b>up</b></action>", None, None, None, "up"),
    ("<action>" + " " * 30 + "up" + " " * 30 + "</action>", "up", "up", "up", "up"),
    ("<action>" + " " * 70 + "up</action>", None, None, None, "up"),
    # upstream: only a tag holding a direction is a tag; else the LAST bare direction word
    ("<action></action><action>up</action>", None, "up", None, "up"),
    ("<action >left</action> so right", "left", "left", "left", "right"),
    ("<action>" + " " * 100 + "left</action> not down", None, None, None, "left"),
    ('<action>"left"</action>', None, None, None, "left"),
    ("**right**", None, None, None, "right"),
    ("up.", None, None, None, "up"),
    ("<action>up down</action>", None, None, None, "down"),
    ("<action>\u3000left\u2003</action> up", "left", "left", "left", "left"),
    ("<action>\u200bup</action> down", None, None, None, "down"),
    ("left-right", None, None, None, "right"),
    ("up_ up1 \u00e9up up\u00e9 \uff55\uff50", None, None, None, None),
    ("up\u0301", None, None, None, "up"),
    # lookalike letters: Python's re matches dotless/dotted i for "i" under IGNORECASE.
    # In the tag name upstream accepts them (and so do we) ...
    ("<act\u0131on>left</ACT\u0130ON> up", "left", "left", "left", "left"),
    # ... in "right" upstream raises KeyError; here the spelling is simply not a direction.
    ("r\u0131ght", None, None, None, None),
    ("R\u0130GHT", None, None, None, None),
    ("<action>r\u0131ght</action> left", None, None, None, "left"),
    ("left r\u0131ght", None, None, None, "left"),
    ("<action>up</action><action>r\u0131ght</action>", "up", None, None, "up"),
]


@pytest.mark.parametrize(("text", "first", "last", "single", "upstream"), TABLE)
def test_parse_action_table(text, first, last, single, upstream):
    assert parse_action(text) == first  # first_tag is the default
    assert parse_action(text, FIRST) == first
    assert parse_action(text, LAST) == last
    assert parse_action(text, SINGLE) == single
    assert parse_action(text, UPSTREAM) == upstream


@pytest.mark.parametrize("mode", PARSING_MODES)
@pytest.mark.parametrize("text", [None, 5, b"<action>up</action>", ["<action>up</action>"]])
def test_parse_action_non_strings_are_no_action(text, mode):
    assert parse_action(text, mode) is None


def test_unknown_mode_is_no_action():
    assert parse_action("<action>up</action>", "bogus") is None  # type: ignore[arg-type]


HUGE = 10 * 1024 * 1024
HUGE_REPLIES = {
    "filler then tag": "a" * HUGE + "<action>left</action>",
    "open brackets": "<" * HUGE,
    "open tags": "<action>" * (HUGE // 8),
    "spaced brackets": "< " * (HUGE // 2),
    "tag without end": "<action>" + " " * HUGE + "</action>",
    "many tags": "<action>up</action>" * (HUGE // 19),
    "words": "x " * (HUGE // 2),
}


@pytest.mark.parametrize("name", list(HUGE_REPLIES))
def test_huge_replies_parse_in_linear_time(name):
    text = HUGE_REPLIES[name]
    started = time.perf_counter()
    for mode in PARSING_MODES:
        action = parse_action(text, mode)
        if action is None:
            assert explain_invalid(text, mode)
    assert time.perf_counter() - started < 15  # ~1 s on a laptop; quadratic would be hours


def test_huge_reply_results():
    assert parse_action(HUGE_REPLIES["filler then tag"], FIRST) == "left"
    assert parse_action(HUGE_REPLIES["many tags"], LAST) == "up"
    assert parse_action(HUGE_REPLIES["many tags"], SINGLE) is None
    assert parse_action(HUGE_REPLIES["words"], UPSTREAM) is None


@pytest.mark.parametrize(
    ("messages", "text"),
    [
        ([{"role": "assistant", "content": "hi"}], "hi"),
        ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "a"),
        ([{"content": "no role"}], "no role"),
        ("plain string", "plain string"),
        (["a", "b"], "b"),
        ((({"role": "assistant", "content": "tuple"}),), "tuple"),
        ([], ""),
        ((), ""),
        (None, ""),
        (42, ""),
        ({"role": "assistant", "content": "a dict is not a list"}, ""),
        ([{"role": "user", "content": "<action>up</action>"}], ""),
        ([{"role": "system", "content": "x"}], ""),
        ([{"role": "assistant", "content": None}], ""),
        ([{"role": "assistant"}], ""),
        ([{"role": "assistant", "content": 3.5}], ""),
        ([None], ""),
        ([7], ""),
        (
            [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "<action>"},
                        {"type": "image_url", "image_url": {"url": "data:..."}},
                        {"type": "text", "text": "up</action>"},
                        "bare",
                        {"type": "text", "text": None},
                        {"text": "untyped"},
                        5,
                    ],
                }
            ],
            "<action>\nup</action>\nbare\nuntyped",
        ),
    ],
)
def test_reply_text_shapes(messages, text):
    assert reply_text(messages) == text


def test_content_parts_are_parsed():
    parts = [
        {"type": "text", "text": "thinking..."},
        {"type": "text", "text": "<action>up</action>"},
    ]
    assert parse_action(reply_text([{"role": "assistant", "content": parts}])) == "up"


@pytest.mark.parametrize(
    ("text", "mode", "reason"),
    [
        ("", FIRST, "the reply is empty"),
        ("   ", SINGLE, "the reply is empty"),
        ("hello", FIRST, "no <action>...</action> tag"),
        ("hello", UPSTREAM, "no <action> tag and no direction word"),
        ("<action>jump</action>", FIRST, "holds 'jump', which is not a direction"),
        ("<action>up</action><action>jump</action>", LAST, "holds 'jump'"),
        (
            "<action>up</action><action>up</action><action>up</action>",
            SINGLE,
            "has 3 <action> tags",
        ),
        ("<action>caf\u00e9</action>", FIRST, "holds 'caf\\xe9'"),
        ("<action>up</action> ok", EXACT, "text besides one <action> tag; give the tag alone"),
        ("say up", EXACT, "no <action>...</action> tag"),
        (" <action>jump</action> ", EXACT, "holds 'jump', which is not a direction"),
        ("\n", EXACT, "the reply is empty"),
    ],
)
def test_explain_invalid(text, mode, reason):
    assert parse_action(text, mode) is None
    explanation = explain_invalid(text, mode)
    assert reason in explanation
    assert explanation.isascii()


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("<>/ \n\tactionupdwlefrigh ACTIONUPx\u00e9")), max_size=80
    ),
    mode=st.sampled_from(PARSING_MODES),
)
def test_parse_action_never_raises_and_returns_a_direction(text, mode):
    action = parse_action(text, mode)
    assert action in (None, "up", "down", "left", "right")
    if action is None:
        assert explain_invalid(text, mode).isascii()
