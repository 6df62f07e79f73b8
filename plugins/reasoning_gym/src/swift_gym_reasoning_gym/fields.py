"""One dataclass field of reasoning-gym as one bounded pydantic field, and back.

reasoning-gym's task configs are plain dataclasses with loose annotations (`tuple` for a tuple
of strings, `tuple[str]` for three of them, enums, dates, a nested dataclass). A dataset row
is untrusted, so each field becomes a strict, bounded pydantic type, and a converter turns the
validated value back into what the dataclass expects (a tuple, an enum member, a `date`).
The translation is mechanical; a type it does not know raises `UnsupportedField`, which the
tests turn into a failure for the task (so a new reasoning-gym release cannot slip through).
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import types
import typing
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, Field

INT_BOUND = 1000
"""Integers are bounded by +-max(INT_BOUND, 10 x |default|): generous for every task's own
ranges, small enough that a row cannot ask for a 10**9-node graph."""
FLOAT_BOUND = 1000.0
STR_CHARS = 200
LIST_ITEMS = 64

Convert = Callable[[Any], Any]

_SCALAR = Union[  # noqa: UP007 - a runtime type expression
    bool,
    Annotated[int, Field(ge=-(10**9), le=10**9)],
    Annotated[float, Field(ge=-1e9, le=1e9)],
    Annotated[str, Field(max_length=STR_CHARS)],
    None,
]
JSON_OBJECT = Annotated[
    dict[
        Annotated[str, Field(max_length=64)],
        Union[_SCALAR, Annotated[list[_SCALAR], Field(max_length=LIST_ITEMS)]],  # noqa: UP007
    ],
    Field(max_length=32),
]
"""A bare `dict` field (composite's per-task `config`): a flat JSON object of bounded values,
checked further by the task it is given to."""


class UnsupportedField(TypeError):
    """A dataclass field whose annotation this module cannot translate."""


@dataclasses.dataclass(frozen=True)
class Translated:
    """A field's pydantic annotation (constraints included) and its converter back."""

    annotation: Any
    convert: Convert


def _same(value: Any) -> Any:
    return value


def _bound(default: Any, floor: float) -> float:
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        return max(floor, 10 * abs(default))
    return floor


def _iso(kind: type) -> Convert:
    def parse(text: str) -> Any:
        try:
            return kind.fromisoformat(text)
        except ValueError:
            raise ValueError(f"must be an ISO {kind.__name__} (e.g. {_example(kind)})") from None

    return parse


def _example(kind: type) -> str:
    return "1900-01-01" if kind is datetime.date else "09:30:00"


def _element_default(default: Any) -> Any:
    if isinstance(default, (list, tuple)) and default:
        return default[0]
    return None


def translate(annotation: Any, default: Any, nested: Callable[[type], Translated]) -> Translated:
    """The pydantic side of one annotation; `nested` translates a nested dataclass type."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any:
        raise UnsupportedField("Any")
    if origin in (Union, types.UnionType):
        rest = [arg for arg in args if arg is not type(None)]
        if len(rest) != 1:
            raise UnsupportedField(f"union {annotation!r}")
        inner = translate(rest[0], default, nested)
        if len(rest) == len(args):
            return inner

        def maybe(value: Any, convert: Convert = inner.convert) -> Any:
            return None if value is None else convert(value)

        return Translated(typing.Optional[inner.annotation], maybe)  # noqa: UP045 - at runtime
    if origin is Literal:
        return Translated(annotation, _same)
    if annotation is bool:
        return Translated(bool, _same)
    if annotation is int:
        bound = int(_bound(default, INT_BOUND))
        return Translated(Annotated[int, Field(ge=-bound, le=bound)], _same)
    if annotation is float:
        bound = _bound(default, FLOAT_BOUND)
        return Translated(Annotated[float, Field(ge=-bound, le=bound)], float)
    if annotation is str:
        return Translated(Annotated[str, Field(max_length=STR_CHARS)], _same)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = tuple(member.value for member in annotation)
        return Translated(Literal[values], annotation)  # type: ignore[valid-type]
    if annotation in (datetime.date, datetime.time):
        parse = _iso(annotation)

        def check(text: str, parse: Convert = parse) -> str:
            parse(text)
            return text

        text = Annotated[str, Field(max_length=32), AfterValidator(check)]
        return Translated(text, parse)
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return nested(annotation)
    if annotation is dict or origin is dict:
        return Translated(JSON_OBJECT, dict)
    if annotation in (list, tuple) or origin in (list, tuple, Sequence):
        return _sequence(annotation, origin or annotation, args, default, nested)
    raise UnsupportedField(repr(annotation))


def _sequence(
    annotation: Any, origin: Any, args: tuple[Any, ...], default: Any, nested: Any
) -> Translated:
    """Lists, tuples and sequences, as JSON arrays of at most LIST_ITEMS bounded elements.

    A fixed tuple annotation (`tuple[float, float]`) stays fixed. A one-element `tuple[str]`
    whose default holds more (polynomial_multiplication's `variables = ("x", "y", "z")`), a bare
    `tuple` or `list`, and `tuple[X, ...]` become variable length; a bare container takes its
    element type from the default's first element. The dataclass gets back the container type
    of its default (or of the annotation).
    """
    element_default = _element_default(default)
    fixed = origin is tuple and len(args) > 1 and args[-1] is not Ellipsis
    if fixed and isinstance(default, (list, tuple)) and len(default) not in (0, len(args)):
        fixed = False
    if fixed:
        parts = [translate(arg, None, nested) for arg in args]

        def convert_fixed(value: Any) -> tuple[Any, ...]:
            return tuple(part.convert(item) for part, item in zip(parts, value, strict=True))

        return Translated(tuple[tuple(part.annotation for part in parts)], convert_fixed)
    if args:
        element_type = args[0]
    elif element_default is not None:
        element_type = type(element_default)
    else:
        element_type = str
    element = translate(element_type, element_default, nested)
    container = type(default) if isinstance(default, (list, tuple)) else origin
    if container not in (list, tuple):
        container = list

    def convert(value: Any) -> Any:
        return container(element.convert(item) for item in value)

    return Translated(Annotated[list[element.annotation], Field(max_length=LIST_ITEMS)], convert)
