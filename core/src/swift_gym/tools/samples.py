"""Tool calls made up from the schemas an env offers: valid ones, and garbage no env may fail on.

The random policy (`swift-gym eval --policy random`) plays a tool env without `sample_replies`
with these, and the conformance kit calls every tool with them. A valid call's arguments are
drawn from its tool's `parameters` (a random enum value, a number within its bounds, the
required properties and some optional ones) and checked with `ToolSet.check`, so a call said
to be valid is one; the garbage calls are each refused by that same check: an unknown tool,
arguments that are not JSON, arguments that do not match the schema.
"""

from __future__ import annotations

import json
import math
import random
import string
from typing import Any

from .toolset import ToolCall, ToolResult, ToolSet
from .turns import call_messages

TRIES = 20
"""Draws per call before a tool's parameters count as impossible to match."""
_SPAN = 100
_LETTERS = string.ascii_letters + string.digits
_ANY_VALUES: tuple[Any, ...] = (0, 1, "x", True, None, [], {})
_WRONG_VALUES: tuple[Any, ...] = (None, [[]], {"": {}}, "\u00ff" * 3, -1.5e300, True)


def random_arguments(tools: ToolSet, name: str, rng: random.Random) -> dict[str, Any] | None:
    """Arguments for tool `name` that its schema accepts, drawn with `rng`; None when none of
    `TRIES` draws matched (a schema no value can match, or one too intricate to draw for)."""
    schema = next(tool["function"] for tool in tools if tool["function"]["name"] == name)
    parameters = schema.get("parameters", {"type": "object"})
    for _ in range(TRIES):
        value = _draw(parameters, rng, 0)
        if type(value) is dict and not isinstance(tools.check(as_call(name, value)), ToolResult):
            return value
    return None


def as_call(name: str, arguments: Any, call_id: str = "call_0") -> ToolCall:
    """A `ToolCall` of `name` with `arguments` encoded as JSON text."""
    return ToolCall(call_id, name, json.dumps(arguments, ensure_ascii=False))


def call_message(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """One call as it goes in an assistant message's `tool_calls` (OpenAI's shape)."""
    return call_messages([ToolCall(call_id, name, arguments)])[0]


def valid_call(tools: ToolSet, rng: random.Random, call_id: str) -> dict[str, Any] | None:
    """A call (OpenAI's shape) to a tool drawn with `rng`, with arguments its schema accepts;
    None when that tool's arguments could not be drawn."""
    name = rng.choice(tools.names)
    arguments = random_arguments(tools, name, rng)
    if arguments is None:
        return None
    return call_message(call_id, name, json.dumps(arguments, ensure_ascii=False))


def garbage_calls(tools: ToolSet) -> dict[str, dict[str, Any]]:
    """Calls (OpenAI's shape) that `tools.check` refuses, by kind: `unknown_tool`, `no_name`,
    `not_json`, `not_an_object`, and `mismatch_<tool>` for each tool whose schema some object
    does not match. Each must get an error result."""
    first = tools.names[0]
    unknown = "no_such_tool"
    while unknown in tools.names:
        unknown += "_"
    calls = {
        "unknown_tool": call_message("call_garbage", unknown, "{}"),
        "no_name": call_message("call_garbage", "", "{}"),
        "not_json": call_message("call_garbage", first, '{"unclosed": '),
        "not_an_object": call_message("call_garbage", first, "[1, 2]"),
    }
    for name in tools.names:
        arguments = mismatching_arguments(tools, name)
        if arguments is not None:
            calls[f"mismatch_{name}"] = call_message("call_garbage", name, arguments)
    return calls


def garbage_kind(kind: str) -> str:
    """A garbage call's kind (a key of `garbage_calls`) in words."""
    if kind.startswith("mismatch_"):
        return f"call whose arguments do not match the parameters of {kind[9:]!r}"
    return _KINDS.get(kind, kind)


_KINDS = {
    "unknown_tool": "call to an unknown tool",
    "no_name": "call with no tool name",
    "not_json": "call whose arguments are not JSON",
    "not_an_object": "call whose arguments are no JSON object",
}


def mismatching_arguments(tools: ToolSet, name: str) -> str | None:
    """A JSON object (as text) that tool `name`'s schema refuses; None when it takes any."""
    schema = next(tool["function"] for tool in tools if tool["function"]["name"] == name)
    properties = schema.get("parameters", {}).get("properties", {})
    candidates: list[dict[str, Any]] = [{}]
    candidates += [{key: value} for key in properties for value in _WRONG_VALUES]
    candidates.append({"unexpected_property": 1})
    for arguments in candidates:
        text = json.dumps(arguments, ensure_ascii=False)
        if isinstance(tools.check(ToolCall("call_garbage", name, text)), ToolResult):
            return text
    return None


def _draw(schema: Any, rng: random.Random, depth: int) -> Any:
    """A value drawn for `schema`: meant to match it, checked by the caller."""
    if schema is True or schema == {}:
        return rng.choice(_ANY_VALUES)
    if type(schema) is not dict or depth > 32:
        return None
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if "anyOf" in schema:
        return _draw({**rng.choice(schema["anyOf"]), **_without(schema, "anyOf")}, rng, depth + 1)
    kind = schema.get("type")
    if type(kind) is list:
        kind = rng.choice(kind)
    if kind is None:
        kind = _implied_type(schema)
    return _DRAWS.get(kind, lambda s, r, d: rng.choice(_ANY_VALUES))(schema, rng, depth)


def _without(schema: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != key}


def _implied_type(schema: dict[str, Any]) -> str | None:
    if {"properties", "required", "additionalProperties"} & schema.keys():
        return "object"
    if {"items", "minItems", "maxItems"} & schema.keys():
        return "array"
    if {"minLength", "maxLength"} & schema.keys():
        return "string"
    if {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} & schema.keys():
        return "number"
    return None


def _bounds(schema: dict[str, Any]) -> tuple[float, float]:
    low = max(schema.get("minimum", -math.inf), schema.get("exclusiveMinimum", -math.inf))
    high = min(schema.get("maximum", math.inf), schema.get("exclusiveMaximum", math.inf))
    if math.isinf(low) and math.isinf(high):
        return -_SPAN, _SPAN
    if math.isinf(low):
        return high - _SPAN, high
    if math.isinf(high):
        return low, low + _SPAN
    return low, high


def _integer(schema: dict[str, Any], rng: random.Random, depth: int) -> int:
    low, high = _bounds(schema)
    first, last = math.ceil(low), math.floor(high)
    if first == low and "exclusiveMinimum" in schema and low >= schema.get("minimum", low):
        first += 1
    if last == high and "exclusiveMaximum" in schema and high <= schema.get("maximum", high):
        last -= 1
    return rng.randint(first, max(first, last))


def _number(schema: dict[str, Any], rng: random.Random, depth: int) -> float | int:
    low, high = _bounds(schema)
    return rng.choice((_integer(schema, rng, depth), rng.uniform(low, high)))


def _string(schema: dict[str, Any], rng: random.Random, depth: int) -> str:
    low = schema.get("minLength", 0)
    high = min(schema.get("maxLength", low + 8), low + 8)
    return "".join(rng.choice(_LETTERS) for _ in range(rng.randint(low, max(low, high))))


def _array(schema: dict[str, Any], rng: random.Random, depth: int) -> list[Any]:
    low = schema.get("minItems", 0)
    high = min(schema.get("maxItems", low + 3), low + 3)
    items = schema.get("items", True)
    return [_draw(items, rng, depth + 1) for _ in range(rng.randint(low, max(low, high)))]


def _object(schema: dict[str, Any], rng: random.Random, depth: int) -> dict[str, Any]:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    value = {}
    for key in required:
        value[key] = _draw(properties.get(key, extra), rng, depth + 1)
    for key, sub in properties.items():
        if key not in value and rng.random() < 0.5:
            value[key] = _draw(sub, rng, depth + 1)
    return value


_DRAWS = {
    "object": _object,
    "array": _array,
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": lambda schema, rng, depth: rng.random() < 0.5,
    "null": lambda schema, rng, depth: None,
}
