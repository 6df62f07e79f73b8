"""`swift_gym.tools.samples`: arguments drawn from a tool's schema match it; garbage calls don't."""

from __future__ import annotations

import json
import random

import pytest

from swift_gym import ToolCall, ToolResult, ToolSet
from swift_gym.tools.samples import garbage_calls, random_arguments, valid_call


def tool(name: str, parameters: dict) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


SCHEMAS = {
    "enum": {"type": "object", "properties": {"d": {"enum": ["up", "down", 3, None]}},
             "required": ["d"], "additionalProperties": False},
    "bounds": {"type": "object", "properties": {
        "i": {"type": "integer", "exclusiveMinimum": 2, "exclusiveMaximum": 5},
        "x": {"type": "number", "minimum": -1.5, "maximum": -1.25},
        "s": {"type": "string", "minLength": 3, "maxLength": 4},
    }, "required": ["i", "x", "s"]},
    "nested": {"type": "object", "properties": {
        "list": {"type": "array", "minItems": 2, "items": {"type": "object", "properties": {
            "on": {"type": "boolean"}, "tag": {"const": "t"}}, "required": ["on", "tag"]}},
        "either": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 10}]},
        "kinds": {"type": ["string", "integer"], "maxLength": 2, "maximum": 0},
    }, "required": ["list", "either", "kinds"], "additionalProperties": False},
    "free": {"type": "object", "required": ["extra"], "additionalProperties": {"type": "integer"}},
    "none": {"type": "object", "properties": {}},
}  # fmt: skip
TOOLS = ToolSet([tool(name, schema) for name, schema in SCHEMAS.items()])


@pytest.mark.parametrize("name", SCHEMAS)
def test_drawn_arguments_match_the_schema(name: str) -> None:
    rng = random.Random(0)
    for _ in range(200):
        arguments = random_arguments(TOOLS, name, rng)
        assert arguments is not None
        assert TOOLS.check(ToolCall("c", name, json.dumps(arguments))) == arguments


def test_every_enum_value_is_drawn() -> None:
    rng = random.Random(1)
    drawn = {json.dumps(random_arguments(TOOLS, "enum", rng)["d"]) for _ in range(100)}
    assert drawn == {'"up"', '"down"', "3", "null"}


def test_a_valid_call_is_in_openai_shape_with_the_id_given() -> None:
    call = valid_call(TOOLS, random.Random(2), "call_7")
    assert call is not None and call["id"] == "call_7" and call["type"] == "function"
    checked = TOOLS.check(
        ToolCall("call_7", call["function"]["name"], call["function"]["arguments"])
    )
    assert not isinstance(checked, ToolResult)


def test_every_garbage_call_is_refused_with_an_error_result() -> None:
    calls = garbage_calls(TOOLS)
    expected = {"unknown_tool", "no_name", "not_json", "not_an_object"}
    expected |= {f"mismatch_{name}" for name in SCHEMAS if name != "none"}
    assert set(calls) == expected  # "none" takes any object: no mismatch for it
    for call in calls.values():
        function = call["function"]
        result = TOOLS.check(ToolCall(call["id"], function["name"], function["arguments"]))
        assert isinstance(result, ToolResult) and result.is_error, call


def test_the_unknown_tool_is_no_tool_offered() -> None:
    tools = ToolSet([tool("no_such_tool", {"type": "object"})])
    assert garbage_calls(tools)["unknown_tool"]["function"]["name"] == "no_such_tool_"
