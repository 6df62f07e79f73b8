"""The kit's config-model checks: JSON Schema export, unknown keys, bounded fields."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import ConfigDict, Field

from swift_gym import Env, EnvConfig
from swift_gym.testing import CHECKS, check_env
from swift_gym.testing.config_checks import unbounded_fields

MODEL_CHECKS = ["config_schema", "config_strict", "config_bounds"]


def env_with(config_model: type, *, call_super: bool = True) -> type[Env]:
    class ConfiguredEnv(Env):
        def __init__(self, env_config=None):
            if call_super:
                super().__init__(env_config)

        async def reset(self, request=None):
            return "", {}, ""

        async def step(self, messages):
            return "", 0.0, True, {}

    ConfiguredEnv.config_model = config_model
    return ConfiguredEnv


def model_violations(env: type[Env]):
    report = check_env(env, skip=set(CHECKS) - set(MODEL_CHECKS))
    return {check: [str(v) for v in report.of(check)] for check in MODEL_CHECKS}


class Bounded(EnvConfig):
    size: int = Field(4, ge=2, le=64)
    p: float = Field(0.5, gt=0, lt=1)
    mode: Literal["a", "b"] = "a"
    flag: bool = False
    rows: list[Annotated[str, Field(max_length=8)]] | None = Field(None, max_length=8)
    label: str | None = Field(None, max_length=20)


class RowBounded(EnvConfig):
    rows: list[str] = Field(default_factory=list, max_length=8)  # rows unbounded in length


class Loose(EnvConfig):
    model_config = ConfigDict(extra="allow")


class Unbounded(EnvConfig):
    count: int = 3
    low_only: float = Field(0.0, ge=0)
    text: str = ""
    anything: Any = None


class Thing:
    pass


class NoSchema(EnvConfig):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    thing: Thing | None = None


def test_a_bounded_strict_model_passes() -> None:
    assert model_violations(env_with(Bounded)) == {check: [] for check in MODEL_CHECKS}


def test_unbounded_fields_are_named() -> None:
    found = model_violations(env_with(Unbounded))["config_bounds"]
    assert len(found) == 4
    for name in ("count", "low_only", "text", "anything"):
        assert any(f"field {name!r} of Unbounded is unbounded" in text for text in found)


def test_list_items_must_be_bounded_too() -> None:
    assert unbounded_fields(RowBounded.model_json_schema()) == ["rows"]
    assert unbounded_fields(Bounded.model_json_schema()) == []


def test_extra_keys_allowed_is_a_violation() -> None:
    (found,) = model_violations(env_with(Loose))["config_strict"]
    assert "an unknown key was accepted" in found


def test_an_env_that_skips_validation_accepts_unknown_keys() -> None:
    (found,) = model_violations(env_with(Bounded, call_super=False))["config_strict"]
    assert "an unknown key was accepted" in found


def test_a_model_without_json_schema_is_reported() -> None:
    (found,) = model_violations(env_with(NoSchema))["config_schema"]
    assert "NoSchema.model_json_schema() failed" in found


def test_a_config_model_that_is_not_an_env_config_is_reported() -> None:
    (found,) = model_violations(env_with(dict))["config_schema"]
    assert "must be a subclass of swift_gym.EnvConfig" in found


@pytest.mark.parametrize(
    ("schema", "bounded"),
    [
        ({"type": "integer", "minimum": 0, "maximum": 3}, True),
        ({"type": "integer", "minimum": 0}, False),
        ({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}, True),
        ({"type": "string", "maxLength": 3}, True),
        ({"type": "string", "pattern": "^a+$"}, False),
        ({"enum": ["a", "b"]}, True),
        ({"const": 1}, True),
        ({"anyOf": [{"type": "null"}, {"type": "string", "maxLength": 2}]}, True),
        ({"anyOf": [{"type": "null"}, {"type": "string"}]}, False),
        ({"allOf": [{"type": "string"}, {"type": "string", "maxLength": 1}]}, True),
        ({"type": "array", "maxItems": 2, "items": {"type": "boolean"}}, True),
        ({"type": "array", "items": {"type": "boolean"}}, False),
        ({"type": "object", "properties": {}, "additionalProperties": False}, True),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, False),
        ({"$ref": "#/$defs/Mode"}, True),
        ({}, False),
    ],
)
def test_bounds_by_schema_shape(schema, bounded) -> None:
    whole = {"properties": {"x": schema}, "$defs": {"Mode": {"enum": ["a"]}}}
    assert unbounded_fields(whole) == ([] if bounded else ["x"])
