"""Options shared by several commands, and `--set key=value` parsing.

Env configs are strict (a string is never coerced to a number), so each `--set` value is read as
a JSON literal when it is one (`4`, `0.5`, `true`, `null`, `["SF", "FG"]`, `"007"`) and kept as a
string otherwise (`map=SF/FG`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import click

from ..json_text import TooDeepError, loads
from .errors import CommandError

F = TypeVar("F", bound=Callable[..., Any])
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_value(text: str) -> Any:
    """`text` as a JSON literal if it is one, else the string itself.

    JSON nested too deep for an env config is refused (TooDeepError), not kept as a string.
    """
    try:
        return loads(text)
    except TooDeepError:
        raise
    except ValueError:
        return text


def parse_overrides(
    pairs: Iterable[str], reserved: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """`["size=6", "p=0.9"]` -> `{"size": 6, "p": 0.9}`; `reserved` maps refused keys to a hint."""
    overrides: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not _KEY.fullmatch(key):
            raise CommandError(f"--set {pair!r}: expected KEY=VALUE, e.g. --set size=6")
        if reserved and key in reserved:
            raise CommandError(f"--set {key}=...: {reserved[key]}")
        try:
            overrides[key] = parse_value(value)
        except TooDeepError as error:
            raise CommandError(f"--set {key}=...: the JSON value is {error}") from None
    return overrides


def set_option(function: F) -> F:
    """`--set KEY=VALUE`, repeatable: fields of the env_config."""
    return click.option(
        "--set",
        "overrides",
        multiple=True,
        metavar="KEY=VALUE",
        help="Set an env_config field (repeatable). Values are JSON literals when they parse "
        "(6, 0.5, true, [..]), else strings.",
    )(function)


def json_option(function: F) -> F:
    """`--json`: machine-readable output on stdout instead of tables."""
    return click.option(
        "--json", "as_json", is_flag=True, help="Print machine-readable JSON instead of tables."
    )(function)
