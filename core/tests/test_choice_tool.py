"""`ChoiceTool`: one function with one enum or bounded-integer parameter, and its reading."""

from __future__ import annotations

import json

import pytest

from swift_gym import StepResult, as_step_result, tool_calls
from swift_gym.tools.choice import NO_CALL, ChoiceTool, message

MOVE = ChoiceTool("move", "direction", "Move.", choices=("up", "down"))
GUESS = ChoiceTool("guess", "number", "Guess.", bounds=(1, 20))


def test_the_schema_is_one_required_parameter_and_nothing_else():
    (tool,) = MOVE.tools
    assert tool["function"]["parameters"] == {
        "type": "object",
        "properties": {"direction": {"type": "string", "enum": ["up", "down"]}},
        "required": ["direction"],
        "additionalProperties": False,
    }
    (tool,) = GUESS.tools
    assert tool["function"]["parameters"]["properties"]["number"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 20,
    }
    assert MOVE.how == "call move once, with direction up or down"
    assert GUESS.how == "call guess once, with number an integer from 1 to 20"


def test_exactly_one_of_choices_and_bounds():
    with pytest.raises(ValueError, match="exactly one"):
        ChoiceTool("move", "direction", "Move.")
    with pytest.raises(ValueError, match="exactly one"):
        ChoiceTool("move", "direction", "Move.", choices=("up",), bounds=(0, 1))


def test_a_valid_call_is_its_value():
    choice = GUESS.read([GUESS.message(7)])
    assert choice.value == 7 and choice.errors == () and choice.reason == ""
    (result,) = choice.answer("higher")
    assert (result.tool_call_id, result.name, result.content, result.is_error) == (
        "call_0",
        "guess",
        "higher",
        False,
    )


@pytest.mark.parametrize(
    ("reply", "errors", "reason"),
    [
        ("[7]", 0, NO_CALL),
        (message("7", []), 0, NO_CALL),
        (GUESS.message(21), 1, "refused"),
        (GUESS.message(True), 1, "refused"),
        (message("", [("a", "guess", "{")]), 1, "refused"),
        (message("", [("a", "gues", '{"number": 1}')]), 1, "refused"),
        (
            message("", [("a", "guess", '{"number": 1}'), ("b", "guess", '{"number": 2}')]),
            2,
            "2 tool calls",
        ),
    ],
)
def test_anything_else_is_no_choice_and_every_call_gets_an_error(reply, errors, reason):
    choice = GUESS.read([reply] if isinstance(reply, dict) else reply)
    assert choice.value is None and choice.call is None
    assert reason in choice.reason
    assert len(choice.errors) == errors
    assert all(r.is_error for r in choice.errors)
    calls = tool_calls([reply]) if isinstance(reply, dict) else []
    # the results answer the calls one to one: the core's own check accepts them
    assert isinstance(
        as_step_result(StepResult("no", tool_results=choice.answer("")), calls), StepResult
    )


@pytest.mark.parametrize("tool", [MOVE, GUESS], ids=["choices", "bounds"])
def test_samples_hold_every_kind_of_reply(tool):
    samples = tool.samples()
    read = [tool.read([s] if isinstance(s, dict) else s) for s in samples]
    valid = [c.value for c in read if c.call is not None]
    assert valid == (list(tool.choices) if tool.choices else [1, 10, 20])
    assert sum(c.call is None for c in read) >= 5
    assert any(len(c.errors) == 2 for c in read)
    assert any(isinstance(s, str) for s in samples)
    assert all(json.dumps(s) for s in samples)


def test_a_valid_call_read_again_gives_the_same_choice_and_invalid_ones_stay_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`read` remembers the value of each valid call text (the check is a pure function of the
    tool name and the arguments); a refused call is checked again every time."""
    import swift_gym.tools.choice as choice_tool

    tool = ChoiceTool("move", "direction", "Move.", choices=("up", "down"))
    valid = [message("", [("c1", "move", '{"direction": "up"}')])]
    again = [message("", [("c2", "move", '{"direction": "up"}')])]
    wrong = [message("", [("c3", "move", '{"direction": "left"}')])]
    first, second = tool.read(valid), tool.read(again)
    assert (first.value, first.call.id) == ("up", "c1")
    assert (second.value, second.call.id) == ("up", "c2")  # tied to its own call
    for _ in range(2):
        refused = tool.read(wrong)
        assert refused.value is None and refused.errors[0].is_error
    monkeypatch.setattr(choice_tool, "CACHED_CALLS", 1)  # full: later texts are checked each time
    spaced = [message("", [("c4", "move", '{"direction":"down"}')])]
    assert tool.read(spaced).value == tool.read(spaced).value == "down"
    assert len(tool._values) == 1
