"""The part of JSON Schema that tool parameters use, compiled once, checked per call in
microseconds.

A function tool's `parameters` are a JSON Schema object, and in practice a small one: types,
enums, properties, required keys, items, bounds. This module understands exactly that subset
(`KEYWORDS`, plus the annotations in `ANNOTATIONS`) and refuses a schema with any other keyword,
naming it, so a schema never quietly checks less than its author meant. A schema is compiled into
nested closures when an env offers the tool; a call's arguments then cost one walk of the
closures, stopping at the first mismatch.

What a check costs is bounded whatever the schema and the arguments, since an env or an MCP
server writes the one and a model the other: a schema is at most `MAX_SCHEMA_SIZE` big, a check
takes at most `WORK_LIMIT` steps (then it stops and says where), and the message of a failing
`anyOf` branch is never written unless the whole check fails. `enum` and `const` compare as
JSON Schema does: 1 and 1.0 are equal, true and 1 are not, in arrays and objects too.

Why not the `jsonschema` library: it would be a new core dependency (with `referencing`,
`rpds-py`, `attrs`), and a check of a one-enum object costs several times what this one does
(`benchmarks/bench_tools.py` measures both). Not supported, on purpose: `$ref`/`$defs` (inline
the definition), `pattern` (a pattern that backtracks can hang on text a model writes: check the
string in your tool), `oneOf`/`allOf`/`not`, `format` as a check (it is an annotation, as in JSON
Schema 2020-12).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..errors import did_you_mean, printable, short_repr

MAX_SCHEMA_DEPTH = 32
"""Schemas nested deeper than this are refused: no tool needs it, and compiling recurses."""
MAX_SCHEMA_SIZE = 10_000
"""Subschemas, `required` names and enum/const values (each JSON value inside an array or
object counted) in one tool's parameters at most: a schema an env or an MCP server lists costs
at most this to compile and to keep."""
WORK_LIMIT = 100_000
"""Steps one check takes at most, whatever the arguments: each keyword checked (each type of a
list of types), each item of an array, each key of an object and each `anyOf` branch tried is a
step, and an enum value that is an array or an object costs its size. A check that would take
more stops there and says so, so a wide `anyOf` under `items` costs milliseconds, not seconds,
on the caller's event loop (`benchmarks/bench_tools.py` times the worst case)."""
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

Render = Callable[[Any], str]
Mismatch = tuple[list[Any], "str | Render", Any]
"""Where (keys and indexes, outermost first), why, and the value: `(path, reason, value)`.
`reason` is the text, or a function that renders it from `value`, called only by `describe`:
a branch of an `anyOf` that fails costs no message unless the whole check fails."""
Checker = Callable[[Any], "Mismatch | None"]
_Check = Callable[[Any, list[int]], "Mismatch | None"]
"""A compiled schema inside this module: `check(value, work)`, `work[0]` the steps left."""
_Node = tuple[_Check, int]
"""A compiled schema and the steps it costs itself (its keywords), charged by its caller."""


class SchemaError(ValueError):
    """A schema this module cannot check: `where` is its place, `reason` what to fix."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


class _OutOfWork(Exception):
    """A check used up its steps; `path` is where it stopped (filled in on the way out)."""

    def __init__(self) -> None:
        super().__init__()
        self.path: list[Any] = []


def compile_schema(
    schema: Any, where: str = "parameters", *, work_limit: int = WORK_LIMIT
) -> Checker:
    """A checker for `schema`: it returns None for a matching value, else a `Mismatch`.

    The checker never raises and takes at most `work_limit` steps: one that would take more
    returns a mismatch for which `is_too_costly` is true. Raises SchemaError for a schema that
    is not valid JSON Schema, uses a keyword outside the supported subset, or is larger than
    `MAX_SCHEMA_SIZE`.
    """
    check, weight = _compile(schema, where, 0, [0])

    def checked(value: Any) -> Mismatch | None:
        work = [work_limit - weight]
        try:
            return check(value, work)
        except _OutOfWork as stop:
            return stop.path, _out_of_work, work_limit

    return checked


def is_too_costly(mismatch: Mismatch) -> bool:
    """Whether the check stopped at its work limit (the value may match or not)."""
    return mismatch[1] is _out_of_work


def describe(mismatch: Mismatch) -> str:
    """`a.b[2]: why`, for a message the model reads (keys escaped and cut)."""
    path, reason, value = mismatch
    text = reason if type(reason) is str else reason(value)
    where = ""
    for part in path:
        where += f"[{part}]" if type(part) is int else (f".{part}" if where else part)
    return f"{printable(where, 200)}: {text}" if where else text


def _out_of_work(limit: int) -> str:
    return (
        f"the check stopped here after {limit:,} steps (array items, object keys and anyOf "
        "branches tried, each counted); send fewer or simpler values"
    )


def _grow(size: list[int], count: int, where: str) -> None:
    size[0] += count
    if size[0] > MAX_SCHEMA_SIZE:
        raise SchemaError(
            where,
            f"the schema holds more than {MAX_SCHEMA_SIZE:,} subschemas, required names and "
            f"enum values; at most {MAX_SCHEMA_SIZE:,} per tool: shorten its enums or anyOf, or "
            "split the tool",
        )


def _compile(schema: Any, where: str, depth: int, size: list[int]) -> _Node:
    if depth > MAX_SCHEMA_DEPTH:
        raise SchemaError(where, f"nested more than {MAX_SCHEMA_DEPTH} deep")
    _grow(size, 1, where)
    if schema is True:
        return _anything, 0
    if schema is False:
        return _nothing, 1
    if type(schema) is not dict:
        raise SchemaError(where, f"a schema must be an object or a boolean, not {_kind(schema)}")
    for key in schema:
        if key not in KEYWORDS and key not in ANNOTATIONS:
            close = did_you_mean(str(key), KEYWORDS)
            hint = f"; did you mean {close!r}?" if close else ""
            raise SchemaError(
                where, f"{short_repr(key)} is not supported{hint} (see swift_gym.tools.schema)"
            )
    checks: list[_Check] = []
    if "type" in schema:
        checks.append(_type_check(schema["type"], f"{where}.type"))
    if "enum" in schema:
        checks.append(_enum_check(schema["enum"], f"{where}.enum", size))
    if "const" in schema:
        checks.append(_enum_check([schema["const"]], f"{where}.const", size))
    checks.extend(_number_checks(schema, where))
    checks.extend(_length_checks(schema, where))
    if "anyOf" in schema:
        checks.append(_any_of(schema["anyOf"], f"{where}.anyOf", depth, size))
    if "items" in schema:
        checks.append(_items(schema["items"], f"{where}.items", depth, size))
    if {"properties", "required", "additionalProperties"} & schema.keys():
        checks.append(_object(schema, where, depth, size))
    if not checks:
        return _anything, 0
    weight = len(checks)  # a step per keyword, and one per type a list of types tries
    if type(schema.get("type")) is list:
        weight += len(schema["type"]) - 1
    if len(checks) == 1:
        return checks[0], weight

    def check_all(value: Any, work: list[int]) -> Mismatch | None:
        for check in checks:
            mismatch = check(value, work)
            if mismatch is not None:
                return mismatch
        return None

    return check_all, weight


def _anything(value: Any, work: list[int]) -> Mismatch | None:
    return None


def _nothing(value: Any, work: list[int]) -> Mismatch | None:
    return [], "no value is allowed here", None


def _type_check(declared: Any, where: str) -> _Check:
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

    def render(value: Any) -> str:
        return f"must be {wanted} (got {short_repr(value)})"

    if len(tests) == 1:
        test = tests[0]

        def check_one(value: Any, work: list[int]) -> Mismatch | None:
            return None if test(value) else ([], render, value)

        return check_one

    def check_any(value: Any, work: list[int]) -> Mismatch | None:
        for test in tests:
            if test(value):
                return None
        return [], render, value

    return check_any


def _enum_check(values: Any, where: str, size: list[int]) -> _Check:
    """`enum` (and `const`, an enum of one) with JSON Schema's equality: 1 and 1.0 are equal,
    true and 1 are not, objects regardless of key order. Scalars meet in a set; an allowed array
    or object is compared item by item, costing its own size, never the argument's."""
    if type(values) is not list or not values:
        raise SchemaError(where, "must be a non-empty list of JSON values")
    sizes = [_json_size(value, where, 0) for value in values]
    _grow(size, sum(sizes), where)
    scalars = frozenset(_key(value) for value in values if type(value) not in (list, dict))
    compound = tuple(value for value in values if type(value) in (list, dict))
    cost = sum(n for value, n in zip(values, sizes, strict=True) if type(value) in (list, dict))
    shown = ", ".join(short_repr(value, 40) for value in values[:_ENUM_SHOWN])
    if len(values) > _ENUM_SHOWN:
        shown += f" and {len(values) - _ENUM_SHOWN} more"
    reason = f"must be {shown}" if len(values) == 1 else f"must be one of {shown}"

    def render(value: Any) -> str:
        return f"{reason} (got {short_repr(value)})"

    def check(value: Any, work: list[int]) -> Mismatch | None:
        kind = type(value)
        if kind is list or kind is dict:
            if compound:
                work[0] -= cost
                if work[0] < 0:
                    raise _OutOfWork()
                for allowed in compound:
                    if _equal(allowed, value):
                        return None
        elif (("bool", value) if kind is bool else value) in scalars:
            return None
        return [], render, value

    return check


def _key(value: Any) -> Any:
    """A scalar as a set member: a bool apart from the numbers (True == 1 in Python, not JSON)."""
    return ("bool", value) if type(value) is bool else value


def _equal(allowed: Any, value: Any) -> bool:
    """JSON Schema's equality, walking `allowed` (the schema's, of bounded depth and size)."""
    kind, other = type(allowed), type(value)
    if kind is list:
        return (
            other is list
            and len(allowed) == len(value)
            and all(_equal(a, b) for a, b in zip(allowed, value, strict=True))
        )
    if kind is dict:
        return (
            other is dict
            and len(allowed) == len(value)
            and all(key in value and _equal(item, value[key]) for key, item in allowed.items())
        )
    if kind is bool or other is bool:
        return kind is other and allowed == value
    if other is list or other is dict:
        return False
    return bool(allowed == value)  # numbers by value (1 == 1.0), strings, null


def _json_size(value: Any, where: str, depth: int) -> int:
    """How many JSON values `value` holds (itself included); SchemaError when it is not JSON."""
    if depth > MAX_SCHEMA_DEPTH:
        raise SchemaError(where, f"a value nested more than {MAX_SCHEMA_DEPTH} deep")
    kind = type(value)
    if kind is float and not math.isfinite(value):
        raise SchemaError(where, f"must hold JSON values only, not {value!r}")
    if value is None or kind in (bool, int, float, str):
        return 1
    if kind is list:
        return 1 + sum(_json_size(item, where, depth + 1) for item in value)
    if kind is dict and all(type(key) is str for key in value):
        return 1 + sum(_json_size(item, where, depth + 1) for item in value.values())
    raise SchemaError(where, f"must hold JSON values only, not {_kind(value)}")


def _number(schema: dict[str, Any], name: str, where: str) -> float | None:
    value = schema.get(name)
    if value is None and name not in schema:
        return None
    if type(value) not in (int, float) or not math.isfinite(value):
        raise SchemaError(f"{where}.{name}", "must be a finite number")
    return value


def _number_checks(schema: dict[str, Any], where: str) -> list[_Check]:
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


def _bound_check(bound: float, holds: Callable[[Any, Any], bool], reason: str) -> _Check:
    def render(value: Any) -> str:
        return f"{reason} (got {short_repr(value)})"

    def check(value: Any, work: list[int]) -> Mismatch | None:
        if type(value) is not int and type(value) is not float:
            return None  # bounds apply to numbers only; `type` says what a value must be
        return None if holds(value, bound) else ([], render, value)

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


def _length_checks(schema: dict[str, Any], where: str) -> list[_Check]:
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


def _size_check(kind: type, bound: int, at_least: bool, unit: str) -> _Check:
    reason = f"must have at {'least' if at_least else 'most'} {bound} {unit}"
    if kind is str:
        reason = f"must be at {'least' if at_least else 'most'} {bound} {unit} long"

    def render(size: int) -> str:
        return f"{reason} (got {size:,})"

    def check(value: Any, work: list[int]) -> Mismatch | None:
        if type(value) is not kind:
            return None
        size = len(value)
        fits = size >= bound if at_least else size <= bound
        return None if fits else ([], render, size)

    return check


def _any_of(branches: Any, where: str, depth: int, size: list[int]) -> _Check:
    if type(branches) is not list or not branches:
        raise SchemaError(where, "must be a non-empty list of schemas")
    nodes = [
        (check, weight or 1)  # trying a branch is a step, even one that allows anything
        for check, weight in (
            _compile(branch, f"{where}[{i}]", depth + 1, size) for i, branch in enumerate(branches)
        )
    ]
    count = len(nodes)

    def render(value: Any) -> str:
        return f"must match one of its {count} allowed forms (got {short_repr(value)})"

    def check(value: Any, work: list[int]) -> Mismatch | None:
        for branch, weight in nodes:
            work[0] -= weight
            if work[0] < 0:
                raise _OutOfWork()
            if branch(value, work) is None:
                return None
        return [], render, value

    return check


def _items(items: Any, where: str, depth: int, size: list[int]) -> _Check:
    if type(items) is list:
        raise SchemaError(
            where, "a list of schemas is not supported: give one schema for every item"
        )
    each, weight = _compile(items, where, depth + 1, size)
    step = weight or 1

    def check(value: Any, work: list[int]) -> Mismatch | None:
        if type(value) is not list or each is _anything:
            return None
        index = 0
        try:
            for index, item in enumerate(value):
                work[0] -= step
                if work[0] < 0:
                    raise _OutOfWork()
                mismatch = each(item, work)
                if mismatch is not None:
                    mismatch[0].insert(0, index)
                    return mismatch
        except _OutOfWork as stop:
            stop.path.insert(0, index)
            raise
        return None

    return check


def _object(schema: dict[str, Any], where: str, depth: int, size: list[int]) -> _Check:
    properties = schema.get("properties", {})
    if type(properties) is not dict:
        raise SchemaError(f"{where}.properties", "must be an object of property schemas")
    nodes = {
        name: _compile(sub, f"{where}.properties.{name}", depth + 1, size)
        for name, sub in properties.items()
    }
    required = schema.get("required", [])
    if (
        type(required) is not list
        or any(type(name) is not str for name in required)
        or len(set(required)) != len(required)
    ):
        raise SchemaError(f"{where}.required", "must be a list of property names, each once")
    _grow(size, len(required), f"{where}.required")
    extra = schema.get("additionalProperties", True)
    if extra is False:
        for name in required:
            if name not in properties:
                raise SchemaError(
                    f"{where}.required",
                    f"required property {short_repr(name)} is not among the properties, and "
                    "additionalProperties is false: no call could match",
                )
    extra_node = (
        None if extra is True else _compile(extra, f"{where}.additionalProperties", depth + 1, size)
    )
    missing = {name: f"missing required property {short_repr(name)}" for name in required}
    required_steps = len(missing)
    known = ", ".join(short_repr(name, 40) for name in list(properties)[:_ENUM_SHOWN])

    def unexpected(name: Any) -> str:
        return f"unexpected property {short_repr(name)}; the properties are {known}"

    def check(value: Any, work: list[int]) -> Mismatch | None:
        if type(value) is not dict:
            return None
        if required_steps:
            work[0] -= required_steps
            if work[0] < 0:
                raise _OutOfWork()
            for name, reason in missing.items():
                if name not in value:
                    return [], reason, None
        name = None
        try:
            for name, item in value.items():
                work[0] -= 1
                if work[0] < 0:
                    raise _OutOfWork()
                node = nodes.get(name, extra_node)
                if node is None:
                    continue
                if extra is False and node is extra_node:
                    return [], unexpected, name
                checker, weight = node
                work[0] -= weight
                if work[0] < 0:
                    raise _OutOfWork()
                mismatch = checker(item, work)
                if mismatch is not None:
                    mismatch[0].insert(0, name)
                    return mismatch
        except _OutOfWork as stop:
            if name is not None:
                stop.path.insert(0, name)
            raise
        return None

    return check


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )
