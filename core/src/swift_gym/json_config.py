"""`JsonObject`: a config field that carries JSON through unread, with every level bounded.

Some envs pass part of their config on to something that checks it itself: the `openenv` env
sends its `env_config` to a server. A bare `dict[str, Any]` there would let one dataset row put
a gigabyte into memory, or a Python object no server can read. This type bounds it instead:
plain JSON values only, depth, keys per object, items per list, string lengths, numbers, and the
encoded size of the whole.

A walk checks a value first and names the first place that breaks a bound (pydantic's unions
alone would report every branch of every level). The type behind it states the same bounds,
level by level, so they are in the JSON Schema too (under `$defs`), where the conformance kit's
`config_bounds` check sees them; a test holds the walk and the type to each other.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Union

from pydantic import BeforeValidator, Field
from typing_extensions import TypeAliasType

DEPTH = 6
"""Objects and lists nested at most this deep: the object itself is level 1."""
KEYS = 256
KEY_CHARS = 200
ITEMS = 4096
CHARS = 100_000
NUMBER = 10**20
"""Numbers lie in [-NUMBER, NUMBER]: room for 64-bit seeds and any float a config needs."""
MAX_BYTES = 1 << 20
"""Encoded size of the whole at most: what `swift-gym serve` takes in one frame by default."""


def _check(value: Any, where: str, level: int) -> None:
    """Raise a ValueError naming `where` if `value`, nested at `level`, breaks a bound."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -NUMBER <= value <= NUMBER:
            raise ValueError(f"{where}: number out of [-1e20, 1e20]")
    elif isinstance(value, float):
        if not math.isfinite(value) or not -NUMBER <= value <= NUMBER:
            raise ValueError(f"{where}: number {value!r} is not finite in [-1e20, 1e20]")
    elif isinstance(value, str):
        if len(value) > CHARS:
            raise ValueError(f"{where}: string of {len(value):,} characters; at most {CHARS:,}")
    elif isinstance(value, (dict, list)):
        if level > DEPTH:
            raise ValueError(f"{where}: nested more than {DEPTH} deep")
        if isinstance(value, dict):
            _check_object(value, where, level)
            return
        if len(value) > ITEMS:
            raise ValueError(f"{where}: list of {len(value):,} items; at most {ITEMS:,}")
        for index, item in enumerate(value):
            _check(item, f"{where}[{index}]", level + 1)
    else:
        raise ValueError(f"{where}: {type(value).__name__} is not a JSON value")


def _check_object(value: dict[Any, Any], where: str, level: int) -> None:
    if len(value) > KEYS:
        raise ValueError(f"{where}: object of {len(value):,} keys; at most {KEYS}")
    for key, item in value.items():
        if not isinstance(key, str):
            raise ValueError(f"{where}: key {key!r} is not a string")
        if len(key) > KEY_CHARS:
            raise ValueError(f"{where}: a key of {len(key):,} characters; at most {KEY_CHARS}")
        _check(item, f"{where}.{key}" if where else key, level + 1)


def _bounded(value: Any) -> Any:
    """The walk, before pydantic's own validation (which then cannot fail on what it let by)."""
    if not isinstance(value, dict):
        raise ValueError(f"must be a JSON object, not {type(value).__name__}")
    _check_object(value, "", 1)
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise ValueError(f"is {size:,} bytes as JSON; at most {MAX_BYTES:,}")
    return value


_Key = Annotated[str, Field(max_length=KEY_CHARS)]
_Scalar = Union[  # noqa: UP007 - a runtime type expression
    None,
    bool,
    Annotated[int, Field(ge=-NUMBER, le=NUMBER)],
    Annotated[float, Field(ge=-NUMBER, le=NUMBER)],
    Annotated[str, Field(max_length=CHARS)],
]


def _values(level: int) -> Any:
    """The type of values at `level`: scalars, or containers of the next level's values up to
    DEPTH. Each level is a named alias, so the schema names it once under `$defs`."""
    if level > DEPTH:
        return TypeAliasType(f"JsonLevel{level}", _Scalar)
    inner = _values(level + 1)
    return TypeAliasType(
        f"JsonLevel{level}",
        Union[  # noqa: UP007
            _Scalar,
            Annotated[list[inner], Field(max_length=ITEMS)],  # type: ignore[valid-type]
            Annotated[dict[_Key, inner], Field(max_length=KEYS)],  # type: ignore[valid-type]
        ],
    )


JsonObject = Annotated[  # type: ignore[valid-type]  # built at run time: see _values
    dict[_Key, _values(2)],  # type: ignore[misc]
    Field(max_length=KEYS),
    BeforeValidator(_bounded),
]
"""A JSON object of at most `KEYS` keys, nested at most `DEPTH` deep, `MAX_BYTES` encoded."""
