"""An env config's fields as rows people read: name, type, default, bounds, description.

Read from the pydantic model's JSON Schema, so what `info` shows is exactly what `--schema`
prints and what validation enforces.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

_NUMBER_BOUNDS = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")


@dataclass(frozen=True)
class FieldRow:
    """One config field, described."""

    name: str
    type: str
    default: str
    bounds: str
    description: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def field_rows(schema: dict[str, Any]) -> list[FieldRow]:
    """A row per property of an object schema, in declaration order."""
    defs = schema.get("$defs", {})
    required = set(schema.get("required", ()))
    rows = []
    for name, prop in schema.get("properties", {}).items():
        members = _members(prop, defs)
        bounds = [text for member in members if (text := _bounds(member))]
        if "default" in prop:
            default = json.dumps(prop["default"])
        else:
            default = "(required)" if name in required else ""
        rows.append(
            FieldRow(
                name=name,
                type=" | ".join(_type(member, defs) for member in members),
                default=default,
                bounds="; ".join(bounds),
                description=prop.get("description", ""),
            )
        )
    return rows


def _members(prop: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a union (`anyOf`/`oneOf`), or the property itself; refs resolved."""
    options = prop.get("anyOf") or prop.get("oneOf") or [prop]
    return [_resolve(option, defs) for option in options]


def _resolve(fragment: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = fragment.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return {**defs.get(ref.removeprefix("#/$defs/"), {}), **fragment}
    return fragment


def _type(fragment: dict[str, Any], defs: dict[str, Any]) -> str:
    if "const" in fragment:
        return json.dumps(fragment["const"])
    kind = fragment.get("type")
    if kind == "array":
        items = fragment.get("items")
        inner = _type(_resolve(items, defs), defs) if isinstance(items, dict) else "any"
        return f"array[{inner}]"
    if isinstance(kind, list):
        return " | ".join(map(str, kind))
    if kind is None and "enum" in fragment:
        return "enum"
    return str(kind or fragment.get("title") or "any")


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _bounds(fragment: dict[str, Any]) -> str:
    parts = []
    if "enum" in fragment:
        parts.append("one of " + ", ".join(map(str, fragment["enum"])))
    if any(key in fragment for key in _NUMBER_BOUNDS):
        low = (
            f"[{_number(fragment['minimum'])}"
            if "minimum" in fragment
            else f"({_number(fragment['exclusiveMinimum'])}"
            if "exclusiveMinimum" in fragment
            else "(-inf"
        )
        high = (
            f"{_number(fragment['maximum'])}]"
            if "maximum" in fragment
            else f"{_number(fragment['exclusiveMaximum'])})"
            if "exclusiveMaximum" in fragment
            else "inf)"
        )
        parts.append(f"{low}, {high}")
    for what, low_key, high_key in (
        ("length", "minLength", "maxLength"),
        ("items", "minItems", "maxItems"),
    ):
        least, most = fragment.get(low_key), fragment.get(high_key)
        if least is not None and most is not None:
            parts.append(f"{what} {least}..{most}")
        elif most is not None:
            parts.append(f"{what} <= {most}")
        elif least is not None:
            parts.append(f"{what} >= {least}")
    return ", ".join(parts)
