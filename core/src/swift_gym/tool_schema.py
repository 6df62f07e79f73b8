"""The part of JSON Schema that tool parameters use, compiled once, checked per call in
microseconds.

A function tool's `parameters` are a JSON Schema object, and in practice a small one: types,
enums, properties, required keys, items, bounds. This module understands exactly that subset
(`KEYWORDS`, plus the annotations in `ANNOTATIONS`) and refuses a schema with any other keyword,
naming it, so a schema never quietly checks less than its author meant. A schema is compiled into
nested closures when an env offers the tool; a call's arguments then cost one walk of the
closures, stopping at the first mismatch.

Why not the `jsonschema` library: it would be a new core dependency (with `referencing`,
`rpds-py`, `attrs`), and a check of a one-enum object costs several times what this one does
(`benchmarks/bench_tools.py` measures both). Not supported, on purpose: `$ref`/`$defs` (inline
the definition), `pattern` (a pattern that backtracks can hang on text a model writes: check the
string in your tool), `oneOf`/`allOf`/`not`, `format` as a check (it is an annotation, as in JSON
Schema 2020-12).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from .errors import did_you_mean, printable, short_repr

MAX_SCHEMA_DEPTH = 32
"""Schemas nested deeper than this are refused: no tool needs it, and compiling recurses."""
_ENUM_SHOWN = 10

TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: type(value) is str,
    "integer": lambda value: type(value) is int or (type(value) is float and value.is_integer()),
    "number": lambda value: type(value) is int or type(value) is float,
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
    "object": lambda value: type(value) is dict,
    "array": lambda value: type(value) is list,
}
"""JSON Schema's types over what `json.loads` returns (a bool is no number; 2.0 is an integer)."""
_ARTICLES = {"integer": "an integer", "array": "an array", "object": "an object", "null": "null"}
KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "anyOf",
    }
)
ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "format", "$comment", "$schema", "deprecated"}
)

Mismatch = tuple[list[Any], str]
"""Where (keys and indexes, outermost first) and why a value does not match."""
Checker = Callable[[Any], "Mismatch | None"]


class SchemaError(ValueError):
    """A schema this module cannot check: `where` is its place, `reason` what to fix."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


def compile_schema(schema: Any, where: str = "parameters") -> Checker:
    """A checker for `schema`: it returns None for a matching value, else a `Mismatch`.

    Raises SchemaError for a schema that is not valid JSON Schema or uses a keyword outside
    the supported subset.
    """
    return _compile(schema, where, 0)


def describe(mismatch: Mismatch) -> str:
    """`a.b[2]: why`, for a message the model reads (keys escaped and cut)."""
    path, reason = mismatch
    where = ""
    for part in path:
        where += f"[{part}]" if type(part) is int else (f".{part}" if where else part)
    return f"{printable(where, 200)}: {reason}" if where else reason


def _compile(schema: Any, where: str, depth: int) -> Checker:
    if depth > MAX_SCHEMA_DEPTH:
        raise SchemaError(where, f"nested more than {MAX_SCHEMA_DEPTH} deep")
    if schema is True:
        return _anything
    if schema is False:
        return _nothing
    if type(schema) is not dict:
        raise SchemaError(where, f"a schema must be an object or a boolean, not {_kind(schema)}")
    for key in schema:
        if key not in KEYWORDS and key not in ANNOTATIONS:
            close = did_you_mean(str(key), KEYWORDS)
            hint = f"; did you mean {close!r}?" if close else ""
            raise SchemaError(
                where, f"{short_repr(key)} is not supported{hint} (see swift_gym.tool_schema)"
            )
    checks: list[Checker] = []
    if "type" in schema:
        checks.append(_type_check(schema["type"], f"{where}.type"))
    if "enum" in schema:
        checks.append(_enum_check(schema["enum"], f"{where}.enum"))
    if "const" in schema:
        checks.append(_enum_check([schema["const"]], f"{where}.const"))
    checks.extend(_number_checks(schema, where))
    checks.extend(_length_checks(schema, where))
    if "anyOf" in schema:
        checks.append(_any_of(schema["anyOf"], f"{where}.anyOf", depth))
    if "items" in schema:
        checks.append(_items(schema["items"], f"{where}.items", depth))
    if {"properties", "required", "additionalProperties"} & schema.keys():
        checks.append(_object(schema, where, depth))
    if not checks:
        return _anything
    if len(checks) == 1:
        return checks[0]

    def check_all(value: Any) -> Mismatch | None:
        for check in checks:
            mismatch = check(value)
            if mismatch is not None:
                return mismatch
        return None

    return check_all


def _anything(value: Any) -> Mismatch | None:
    return None


def _nothing(value: Any) -> Mismatch | None:
    return [], "no value is allowed here"


def _type_check(declared: Any, where: str) -> Checker:
    names = [declared] if type(declared) is str else declared
    if type(names) is not list or not names or len(set(map(str, names))) != len(names):
        raise SchemaError(where, "must be a type name or a non-empty list of distinct type names")
    for name in names:
        if type(name) is not str or name not in TYPES:
            close = did_you_mean(str(name), TYPES)
            hint = f"; did you mean {close!r}?" if close else ""
            raise SchemaError(where, f"unknown type {short_repr(name)}{hint}")
    tests = [TYPES[name] for name in names]
    wanted = " or ".join(_ARTICLES.get(name, f"a {name}") for name in names)

    if len(tests) == 1:
        test = tests[0]

        def check_one(value: Any) -> Mismatch | None:
            return None if test(value) else ([], f"must be {wanted} (got {short_repr(value)})")

        return check_one

    def check_any(value: Any) -> Mismatch | None:
        for test in tests:
            if test(value):
                return None
        return [], f"must be {wanted} (got {short_repr(value)})"

    return check_any


def _key(value: Any) -> Any:
    """A hashable key under which JSON-equal values meet (1 and 1.0 do; 1 and true do not)."""
    if type(value) is bool:
        return ("bool", value)
    if type(value) is int or type(value) is float:
        return ("number", value)
    if type(value) is str:
        return ("string", value)
    if value is None:
        return ("null",)
    return ("json", json.dumps(value, sort_keys=True, ensure_ascii=False))


def _enum_check(values: Any, where: str) -> Checker:
    if type(values) is not list or not values:
        raise SchemaError(where, "must be a non-empty list of JSON values")
    try:
        allowed = frozenset(_key(value) for value in values)
    except (TypeError, ValueError):
        raise SchemaError(where, "must hold JSON values only") from None
    shown = ", ".join(short_repr(value, 40) for value in values[:_ENUM_SHOWN])
    if len(values) > _ENUM_SHOWN:
        shown += f" and {len(values) - _ENUM_SHOWN} more"
    reason = f"must be {shown}" if len(values) == 1 else f"must be one of {shown}"

    def check(value: Any) -> Mismatch | None:
        if _key(value) in allowed:
            return None
        return [], f"{reason} (got {short_repr(value)})"

    return check


def _number(schema: dict[str, Any], name: str, where: str) -> float | None:
    value = schema.get(name)
    if value is None and name not in schema:
        return None
    if type(value) not in (int, float) or not math.isfinite(value):
        raise SchemaError(f"{where}.{name}", "must be a finite number")
    return value


def _number_checks(schema: dict[str, Any], where: str) -> list[Checker]:
    checks = []
    for name, holds, text in (
        ("minimum", lambda v, b: v >= b, "at least"),
        ("maximum", lambda v, b: v <= b, "at most"),
        ("exclusiveMinimum", lambda v, b: v > b, "more than"),
        ("exclusiveMaximum", lambda v, b: v < b, "less than"),
    ):
        bound = _number(schema, name, where)
        if bound is not None:
            checks.append(_bound_check(bound, holds, f"must be {text} {bound}"))
    return checks


def _bound_check(bound: float, holds: Callable[[Any, Any], bool], reason: str) -> Checker:
    def check(value: Any) -> Mismatch | None:
        if type(value) is not int and type(value) is not float:
            return None  # bounds apply to numbers only; `type` says what a value must be
        return None if holds(value, bound) else ([], f"{reason} (got {short_repr(value)})")

    return check


def _count(schema: dict[str, Any], name: str, where: str) -> int | None:
    if name not in schema:
        return None
    value = schema[name]
    if type(value) is not int or value < 0:
        raise SchemaError(
            f"{where}.{name}", f"must be a non-negative integer (got {short_repr(value)})"
        )
    return value


def _length_checks(schema: dict[str, Any], where: str) -> list[Checker]:
    checks = []
    for name, kind, unit in (
        ("minLength", str, "characters"),
        ("maxLength", str, "characters"),
        ("minItems", list, "items"),
        ("maxItems", list, "items"),
    ):
        bound = _count(schema, name, where)
        if bound is not None:
            checks.append(_size_check(kind, bound, name.startswith("min"), unit))
    return checks


def _size_check(kind: type, bound: int, at_least: bool, unit: str) -> Checker:
    reason = f"must have at {'least' if at_least else 'most'} {bound} {unit}"
    if kind is str:
        reason = f"must be at {'least' if at_least else 'most'} {bound} {unit} long"

    def check(value: Any) -> Mismatch | None:
        if type(value) is not kind:
            return None
        size = len(value)
        fits = size >= bound if at_least else size <= bound
        return None if fits else ([], f"{reason} (got {size:,})")

    return check


def _any_of(branches: Any, where: str, depth: int) -> Checker:
    if type(branches) is not list or not branches:
        raise SchemaError(where, "must be a non-empty list of schemas")
    checkers = [_compile(branch, f"{where}[{i}]", depth + 1) for i, branch in enumerate(branches)]

    def check(value: Any) -> Mismatch | None:
        for checker in checkers:
            if checker(value) is None:
                return None
        return [], f"must match one of its {len(checkers)} allowed forms (got {short_repr(value)})"

    return check


def _items(items: Any, where: str, depth: int) -> Checker:
    if type(items) is list:
        raise SchemaError(
            where, "a list of schemas is not supported: give one schema for every item"
        )
    each = _compile(items, where, depth + 1)

    def check(value: Any) -> Mismatch | None:
        if type(value) is not list:
            return None
        for index, item in enumerate(value):
            mismatch = each(item)
            if mismatch is not None:
                mismatch[0].insert(0, index)
                return mismatch
        return None

    return check


def _object(schema: dict[str, Any], where: str, depth: int) -> Checker:
    properties = schema.get("properties", {})
    if type(properties) is not dict:
        raise SchemaError(f"{where}.properties", "must be an object of property schemas")
    checkers = {
        name: _compile(sub, f"{where}.properties.{name}", depth + 1)
        for name, sub in properties.items()
    }
    required = schema.get("required", [])
    if (
        type(required) is not list
        or any(type(name) is not str for name in required)
        or len(set(required)) != len(required)
    ):
        raise SchemaError(f"{where}.required", "must be a list of property names, each once")
    extra = schema.get("additionalProperties", True)
    if extra is False:
        for name in required:
            if name not in properties:
                raise SchemaError(
                    f"{where}.required",
                    f"required property {short_repr(name)} is not among the properties, and "
                    "additionalProperties is false: no call could match",
                )
    extra_checker = (
        None if extra is True else _compile(extra, f"{where}.additionalProperties", depth + 1)
    )
    known = ", ".join(short_repr(name, 40) for name in list(properties)[:_ENUM_SHOWN])

    def check(value: Any) -> Mismatch | None:
        if type(value) is not dict:
            return None
        for name in required:
            if name not in value:
                return [], f"missing required property {short_repr(name)}"
        for name, item in value.items():
            checker = checkers.get(name)
            if checker is None:
                if extra_checker is None:
                    continue
                if extra is False:
                    return [], f"unexpected property {short_repr(name)}; the properties are {known}"
                checker = extra_checker
            mismatch = checker(item)
            if mismatch is not None:
                mismatch[0].insert(0, name)
                return mismatch
        return None

    return check


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )
