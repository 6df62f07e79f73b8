"""Reading answers: the same as reasoning-gym's extract_answer, in linear time, bounded."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st
from reasoning_gym.utils import extract_answer as theirs

from swift_gym_reasoning_gym.answers import (
    MAX_ANSWER_CHARS,
    MAX_REPLY_CHARS,
    extract_answer,
    read_answer,
)

PIECES = st.sampled_from(["<answer>", "</answer>", " ", "\n", "a", "42", "<", ">", "\ud800", "é"])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_the_same_answer_as_reasoning_gyms_extract_answer(text):
    assert extract_answer(text) == theirs(text)


def test_examples():
    assert extract_answer("<answer> 7 </answer> then <answer>8</answer>") == "8"
    assert extract_answer("<answer><answer>x</answer>") == "<answer>x"
    assert extract_answer("<answer>open") is None
    assert extract_answer("no tag") is None


def test_hostile_replies_cost_linear_time():
    """reasoning-gym's regex is quadratic here (each opening tag scans to the end)."""
    text = "<answer>" * 120_000 + "x"
    started = time.perf_counter()
    assert extract_answer(text) is None
    assert time.perf_counter() - started < 0.5


def test_limits_and_notes():
    assert read_answer("x" * (MAX_REPLY_CHARS + 1))[1:] == (
        False,
        f"the reply is longer than {MAX_REPLY_CHARS:,} characters",
    )
    long = f"<answer>{'1' * (MAX_ANSWER_CHARS + 1)}</answer>"
    assert read_answer(long)[:2] == (None, False)
    assert read_answer("nothing") == (None, True, "no <answer>...</answer> tag was found")
    assert read_answer("<answer> 5 </answer>") == ("5", True, None)
