"""`evaluation.training`: a record's place in training, read from untrusted files, and the
step ranges `swift-gym replay --step` selects by."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swift_gym.evaluation.training import (
    StepRange,
    TrainingPlace,
    parse_step_range,
    training_place,
)
from swift_gym.ms_swift.trajectory_log import episode_record, turn_record

INFO = {"status": "goal", "action": "up", "metrics": {"success": 1.0, "valid_action": 1.0}}


def training_record(**training: object) -> dict[str, object]:
    where = {"step": 3, "time": 1.7e9, "sequence": 4, "host": "n1", "pid": 9, "rank": 1}
    episode = {"env": "frozen_lake", "env_config": {"seed": 4}, "observation": "o"}
    turns = [turn_record(1, "<action>up</action>", "after", 1.0, True, INFO)]
    return episode_record(episode, turns, 1.0, True, {**where, **training})


def test_the_place_of_a_record_the_scheduler_wrote() -> None:
    assert training_place(training_record()) == TrainingPlace(3, 1.7e9, 4, "n1", 9, 1)


def test_a_record_from_eval_has_no_place() -> None:
    assert training_place({"index": 0, "turns": []}) is None
    assert training_place({"training": "step 3"}) is None
    assert training_place({"training": None}) is None


@pytest.mark.parametrize(
    "bad", [True, -1, 2.5, "3", None, [3], float("nan"), {"step": 3}], ids=repr
)
def test_a_field_of_the_wrong_type_is_unknown_not_trusted(bad: object) -> None:
    place = training_place(training_record(step=bad, rank=bad, pid=bad, sequence=bad))
    assert place is not None
    assert (place.step, place.rank, place.pid, place.sequence) == (None, None, None, None)
    assert place.host == "n1"
    odd = training_place(training_record(time=float("inf"), host=7))
    assert odd is not None and odd.time is None and odd.host is None


@pytest.mark.parametrize(
    ("text", "first", "last", "shown"),
    [
        ("7", 7, 7, "step 7"),
        ("0", 0, 0, "step 0"),
        ("10:20", 10, 20, "steps 10 to 20"),
        (" 10 : 20 ", 10, 20, "steps 10 to 20"),
        ("5:5", 5, 5, "step 5"),
        ("10:", 10, None, "step 10 or later"),
        (":20", None, 20, "step 20 or earlier"),
    ],
)
def test_steps_and_ranges(text: str, first: int | None, last: int | None, shown: str) -> None:
    steps = parse_step_range(text)
    assert (steps.first, steps.last) == (first, last)
    assert str(steps) == shown


@pytest.mark.parametrize(
    "text",
    ["", ":", "-1", "5-6", "a", "1:2:3", "1.5", "10..20", "١٢", "9" * 19, "1,2", "1 2", "1: 2 3"],
)
def test_what_is_no_step_says_what_to_write(text: str) -> None:
    with pytest.raises(ValueError, match=r"write a step N \(10\), or FIRST:LAST") as error:
        parse_step_range(text)
    assert len(str(error.value)) < 300


def test_a_range_backwards_says_which_way_round() -> None:
    with pytest.raises(
        ValueError, match=r"first step \(20\) is after the last \(10\); write 10:20"
    ):
        parse_step_range("20:10")


@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6))
def test_a_range_holds_exactly_its_steps_both_ends_included(a: int, b: int, step: int) -> None:
    first, last = min(a, b), max(a, b)
    assert (step in parse_step_range(f"{first}:{last}")) == (first <= step <= last)
    assert (step in parse_step_range(f"{first}:")) == (step >= first)
    assert (step in parse_step_range(f":{last}")) == (step <= last)
    assert (step in parse_step_range(str(first))) == (step == first)


@pytest.mark.parametrize("unknown", [None, True, -3, "4", 4.0])
def test_a_step_that_is_unknown_is_in_no_range(unknown: object) -> None:
    assert unknown not in StepRange(None, None)
    assert unknown not in parse_step_range("0:")
