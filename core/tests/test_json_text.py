"""`json_text`: every str reads back exactly as it was written, lone surrogates and a lone high
surrogate followed by a lone low one included (which plain JSON would read as one character),
and escaping them costs C time, not one Python call per character."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from swift_gym import json_text
from swift_gym.ms_swift.trajectory_log import encoded_line

any_char = st.characters(exclude_categories=())  # surrogates (Cs) included
pieces = st.sampled_from(
    ["\ud83d", "\ude00", "\ud800", "\udbff", "\udc00", "\udfff", "😀", "a", "\\", "\\u", '"',
     "\\ud83d", "\\uDE00", "\x00", "\n", "é", "\ue000"]
)  # fmt: skip
"""Pieces whose joins make every hard case: a lone high then a lone low, a real pair, escapes
spelled out as text, a backslash before an escape, the private-use area."""
texts = st.text(any_char) | st.lists(pieces).map("".join)


@given(texts)
def test_every_str_reads_back_exactly(text: str) -> None:
    for value in (text, {text: [text, {"k": text}]}):
        written = json_text.dumps(value)
        assert json_text.loads(written) == value
        assert json_text.loads(written.encode("utf-8")) == value  # as a file's line is read


@given(texts)
def test_a_training_line_reads_back_exactly(text: str) -> None:
    record = {"index": 0, "turns": [{"reply": text, "info": {text: text}}], "note": text}
    assert json_text.loads(encoded_line(record)) == record  # as `rows.read_jsonl` reads it


def test_a_lone_high_then_a_lone_low_surrogate_stay_two_characters() -> None:
    pair = "\ud83d\ude00"
    assert len(pair) == 2 and pair != "😀"
    assert json_text.loads(json_text.dumps(pair)) == pair
    assert json_text.loads(json_text.dumps("😀")) == "😀"
    # to any other JSON reader it is the character they spell, as JSON defines it
    assert json.loads(json_text.dumps(pair)) == "😀"


def test_escaped_pairs_from_other_writers_read_as_the_character() -> None:
    assert json_text.loads(json.dumps("😀")) == "😀"  # "\ud83d\ude00", as Python writes it
    assert json_text.loads('"\\uD83D\\uDE00"') == "😀"  # as upper-case writers do
    assert json_text.loads('"\\\\ud83d\\uDE00"') == "\\ud83d\ude00"  # a backslash, then text


@contextmanager
def python_calls() -> Iterator[list[int]]:
    """Counts the Python function calls made inside the block."""
    count = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            count[0] += 1

    sys.setprofile(profile)
    try:
        yield count
    finally:
        sys.setprofile(None)


def test_escaping_a_reply_full_of_lone_surrogates_is_not_a_call_per_character() -> None:
    reply = "\ud800" * 100_000 + "a\udc00" * 100_000
    with python_calls() as calls:
        written = json_text.dumps({"reply": reply})
        line = encoded_line({"turns": [{"reply": reply}]})
    assert calls[0] < 1000  # never one per surrogate, nor one per run of them
    assert len(written) == len('{"reply": ""}') + 6 * 200_000 + 100_000  # 6 ASCII characters each
    assert len(line) == len('{"turns": [{"reply": ""}]}\n') + 6 * 200_000 + 100_000
    assert json_text.loads(line) == {"turns": [{"reply": reply}]}
    spelled = "\\u" + reply  # a backslash then u as text: the codec's error handler escapes
    with python_calls() as calls:
        assert json_text.loads(json_text.dumps(spelled)) == spelled
    assert calls[0] < 100_000 + 1000  # one call per run of surrogates, not per surrogate
