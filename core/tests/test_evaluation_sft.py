"""`swift_gym.evaluation.sft` as a library: any text a model or an env writes comes back exactly
from the row's JSON line, which stays one line for every line reader; selections that could
only mean failed episodes are refused."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swift_gym.evaluation.sft import (
    ExportCounts,
    NotAConversation,
    Selection,
    row_line,
    sft_lines,
    sft_row,
)

TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)
"""Any text UTF-8 can hold: controls, separators, bidi marks, astral characters."""


def record(prompt: str | None, first: str, turns: list[tuple[str, str]]) -> dict:
    return {
        "index": 0,
        "status": "done",
        "system_prompt": prompt,
        "observation": first,
        "turns": [{"reply": reply, "observation": seen} for reply, seen in turns],
        "total_reward": 1.0,
        "success": True,
    }


@given(st.one_of(st.none(), TEXT), TEXT, st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=4))
def test_any_text_round_trips_on_one_line(
    prompt: str | None, first: str, turns: list[tuple[str, str]]
) -> None:
    line = row_line(sft_row(record(prompt, first, turns)))
    assert len(line.splitlines()) == 1 and len(line.encode().split(b"\n")) == 1
    messages = json.loads(line)["messages"]
    expected = [{"role": "system", "content": prompt}] if prompt else []
    expected.append({"role": "user", "content": first})
    for number, (reply, seen) in enumerate(turns, 1):
        expected.append({"role": "assistant", "content": reply})
        if number < len(turns):
            expected.append({"role": "user", "content": seen})
    assert messages == expected


def test_a_lone_surrogate_is_no_conversation() -> None:
    with pytest.raises(NotAConversation, match="turn 1 reply holds a lone surrogate") as error:
        sft_row(record("p", "o", [("\udc80", "x")]))
    assert error.value.reason == "with a lone surrogate"


@pytest.mark.parametrize(
    "kwargs",
    [{"statuses": ["goal", "error"]}, {"statuses": ["not_played"]}, {"min_reward": float("nan")}],
)
def test_selections_of_nothing_useful_are_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        Selection(**kwargs)


def test_lines_and_counts() -> None:
    records = [
        record("p", "o", [("r", "x")]),
        {**record("p", "o", [("r", "x")]), "status": "error"},
        {**record("p", "o", [("r", "x")]), "total_reward": 0.0},
        {**record("p", "o", [("r", "x")]), "observation": None},
    ]
    counts, problems = ExportCounts(), []
    lines = list(
        sft_lines(records, Selection(min_reward=0.5), counts, lambda r, e: problems.append(e))
    )
    assert len(lines) == 1 and counts.written == 1 and counts.episodes == 4
    assert counts.summary() == "1 failed, 1 total reward below 0.5, 1 not a conversation"
    assert [str(p) for p in problems] == ["observation is None, not a string"]
