"""Checks of an env's config model: JSON Schema export, unknown keys refused, bounded fields.

A config comes from a dataset row: the schema validates whole dataset files before training,
and bounds keep one bad row from asking for a 10**9-cell map.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidConfigError, short_repr
from .report import Violation

UNKNOWN_KEY = "swift_gym_conformance_unknown_key"


def check_config_model(env_class: type, base_config: Mapping[str, Any]) -> list[Violation]:
    """Violations of `config_schema`, `config_strict` and `config_bounds` for `env_class`."""
    from ..config import EnvConfig

    model = getattr(env_class, "config_model", None)
    if not (isinstance(model, type) and issubclass(model, EnvConfig)):
        message = f"config_model must be a subclass of swift_gym.EnvConfig, got {model!r}"
        return [Violation("config_schema", message)]
    violations = _strict_violations(env_class, base_config)
    try:
        schema = model.model_json_schema()
        json.dumps(schema)
    except Exception as error:  # any failure to export is the finding
        message = f"{model.__name__}.model_json_schema() failed: {type(error).__name__}: {error}"
        return [Violation("config_schema", message), *violations]
    for name in unbounded_fields(schema):
        violations.append(
            Violation(
                "config_bounds",
                f"field {name!r} of {model.__name__} is unbounded: give numbers ge/le (or "
                "gt/lt), strings and lists max_length, or use a Literal",
            )
        )
    return violations


def _strict_violations(env_class: type, base_config: Mapping[str, Any]) -> list[Violation]:
    config = {**base_config, UNKNOWN_KEY: 1}
    try:
        env_class(config)
    except InvalidConfigError as error:
        if UNKNOWN_KEY in str(error):
            return []
        message = f"the error for an unknown key does not name it: {error}"
        return [Violation("config_strict", message, config)]
    except Exception as error:  # the wrong error type is the finding
        message = (
            f"an unknown key raised {type(error).__name__}: {short_repr(str(error))}; expected "
            "swift_gym.InvalidConfigError (call super().__init__(env_config) first)"
        )
        return [Violation("config_strict", message, config)]
    message = "an unknown key was accepted: keep extra='forbid' from swift_gym.EnvConfig"
    return [Violation("config_strict", message, config)]


def unbounded_fields(schema: Mapping[str, Any]) -> list[str]:
    """Top-level properties of a JSON Schema whose values have no size limit."""
    definitions = schema.get("$defs", {})
    return [
        name
        for name, prop in schema.get("properties", {}).items()
        if not _bounded(prop, definitions, depth=0)
    ]


def _bounded(schema: Any, definitions: Mapping[str, Any], depth: int) -> bool:
    if not isinstance(schema, Mapping) or depth > 20:
        return False
    if "$ref" in schema:
        target = definitions.get(str(schema["$ref"]).rpartition("/")[2])
        return _bounded(target, definitions, depth + 1)
    if "enum" in schema or "const" in schema:
        return True
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            branches = schema[key]
            check = any if key == "allOf" else all
            return check(_bounded(branch, definitions, depth + 1) for branch in branches)
    kind = schema.get("type")
    if kind in ("null", "boolean"):
        return True
    if kind in ("integer", "number"):
        low = "minimum" in schema or "exclusiveMinimum" in schema
        high = "maximum" in schema or "exclusiveMaximum" in schema
        return low and high
    if kind == "string":
        return "maxLength" in schema
    if kind == "array":
        items = [schema["items"]] if "items" in schema else []
        items += schema.get("prefixItems", [])
        return "maxItems" in schema and all(_bounded(i, definitions, depth + 1) for i in items)
    if kind == "object":
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        closed = extra is False or (
            "maxProperties" in schema and _bounded(extra, definitions, depth + 1)
        )
        return closed and all(_bounded(p, definitions, depth + 1) for p in properties.values())
    return False
