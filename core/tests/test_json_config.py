"""`JsonObject`: the walk that checks a pass-through config refuses exactly what its JSON Schema
bounds, each refusal names the place, and the schema is one the conformance kit calls bounded."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from swift_gym import json_config as jc
from swift_gym.testing.config_checks import unbounded_fields


class Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    value: jc.JsonObject


def nested(depth: int) -> dict[str, Any]:
    """An object nested `depth` deep (the object itself is level 1)."""
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"down": value}
    return value


AT_THE_BOUNDS = {
    "depth": nested(jc.DEPTH),
    "keys": {f"k{i}": i for i in range(jc.KEYS)},
    "key": {"k" * jc.KEY_CHARS: None},
    "items": {"list": list(range(jc.ITEMS))},
    "chars": {"text": "x" * jc.CHARS},
    "numbers": {"low": -jc.NUMBER, "high": jc.NUMBER, "float": 1e20, "seed": 2**64 - 1},
    "mixed": {"rows": ["SF", "FG"], "config": {"a": [1, 2.5, None, True, {"b": []}]}},
}
PAST_THE_BOUNDS = {
    "depth": (nested(jc.DEPTH + 1), "nested more than 6 deep"),
    "keys": ({f"k{i}": i for i in range(jc.KEYS + 1)}, "257 keys"),
    "key": ({"k" * (jc.KEY_CHARS + 1): None}, "a key of 201 characters"),
    "items": ({"list": list(range(jc.ITEMS + 1))}, "list: list of 4,097 items"),
    "chars": ({"a": [{"text": "x" * (jc.CHARS + 1)}]}, "a[0].text: string of 100,001"),
    "int": ({"n": jc.NUMBER + 1}, "n: number out of"),
    "float": ({"n": -1.5e20}, "n: number -1.5e+20 is not finite in"),
    "nan": ({"n": float("nan")}, "n: number nan"),
    "inf": ({"n": float("inf")}, "n: number inf"),
    "tuple": ({"t": (1, 2)}, "t: tuple is not a JSON value"),
    "bytes": ({"b": b"x"}, "b: bytes is not a JSON value"),
    "object": ({"o": object()}, "o: object is not a JSON value"),
    "key type": ({"a": {1: 2}}, "a: key 1 is not a string"),
    "size": ({"rows": ["x" * 90_000] * 12}, "bytes as JSON; at most 1,048,576"),
    "not an object": ([1, 2], "must be a JSON object, not list"),
}


@pytest.mark.parametrize("name", AT_THE_BOUNDS)
def test_values_at_the_bounds_are_kept_as_given(name):
    assert Model(value=AT_THE_BOUNDS[name]).value == AT_THE_BOUNDS[name]


@pytest.mark.parametrize("name", PAST_THE_BOUNDS)
def test_one_step_past_a_bound_is_one_error_naming_the_place(name):
    value, message = PAST_THE_BOUNDS[name]
    with pytest.raises(ValidationError) as caught:
        Model(value=value)
    (error,) = caught.value.errors()
    assert message in error["msg"], error["msg"]


def test_the_schema_states_the_bounds_and_the_kit_calls_it_bounded():
    schema = Model.model_json_schema()
    assert unbounded_fields(schema) == []
    definitions = schema["$defs"]
    assert len(definitions) == jc.DEPTH  # levels 2..DEPTH+1, each once
    deepest = definitions[f"JsonLevel{jc.DEPTH + 1}"]
    assert {branch.get("type") for branch in deepest["anyOf"]} == {
        "null", "boolean", "integer", "number", "string"
    }  # fmt: skip
    level2 = definitions["JsonLevel2"]["anyOf"]
    (array,) = [branch for branch in level2 if branch.get("type") == "array"]
    assert array["maxItems"] == jc.ITEMS
    assert schema["properties"]["value"]["maxProperties"] == jc.KEYS
