"""Tools an env offers, the model's calls to them, and the results that answer them.

An env that offers tools returns OpenAI function-tool schemas from `Env.tools()`. They are checked
once, when offered (`ToolSet`, `offered_tools`): names unique and of the form OpenAI accepts,
parameters a JSON Schema object of the subset `tools.schema` understands. Each call the model
makes (`ToolCall`, read by `swift_gym.tool_calls`) is then checked by `ToolSet.check`, which
returns the parsed arguments, or a `ToolResult` error that tells the model what to fix: the
model's mistakes are part of the episode, never an exception out of the env.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidToolsError, did_you_mean, printable, short_repr
from ..json_text import deeper_than
from .schema import SchemaError, compile_schema, describe, is_too_costly

MAX_TOOLS = 128
"""Tools one env offers at most (OpenAI's limit per request)."""
NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""A tool name OpenAI accepts: `^[a-zA-Z0-9_-]{1,64}$`."""
MAX_ARGUMENT_CHARS = 65_536
"""A call's arguments longer than this are refused unread."""
MAX_ARGUMENT_DEPTH = 32
"""Arrays and objects in a call's arguments nested deeper than this are refused."""
_NAMES_SHOWN = 20
_TOOL_KEYS = ("type", "function")
_FUNCTION_KEYS = ("name", "description", "parameters", "strict")
_EMPTY_PARAMETERS = {"type": "object", "properties": {}}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ToolCall:
    """One call in the model's reply: `arguments` is the JSON text the model wrote, unparsed.

    `swift_gym.tool_calls(messages)` builds these from whatever shape the caller handed over.
    """

    id: str
    name: str
    arguments: str

    def __post_init__(self) -> None:
        for field in ("id", "name", "arguments"):
            if not isinstance(getattr(self, field), str):
                raise TypeError(
                    f"ToolCall.{field} must be a str, not {type(getattr(self, field)).__name__}"
                )

    def parsed_arguments(self) -> Any:
        """The arguments parsed as JSON ("" as {}); raises ValueError when they are not JSON.

        No checks against a schema: `ToolSet.check` does those, and never raises.
        """
        return json.loads(self.arguments) if self.arguments.strip() else {}


@dataclass(frozen=True)
class ToolResult:
    """The answer to one call, tied to it by `tool_call_id` and `name`; `content` is what the
    model reads (the `content` of OpenAI's `{"role": "tool"}` message). `is_error` marks a call
    that was refused (unknown tool, bad arguments), so evaluation can count them."""

    tool_call_id: str
    name: str
    content: str
    is_error: bool = False

    def __post_init__(self) -> None:
        for field in ("tool_call_id", "name", "content"):
            if not isinstance(getattr(self, field), str):
                raise TypeError(
                    f"ToolResult.{field} must be a str, not {type(getattr(self, field)).__name__}"
                )

    @classmethod
    def for_call(cls, call: ToolCall, content: str, is_error: bool = False) -> ToolResult:
        """The result of `call`, tied to it."""
        return cls(call.id, call.name, content, is_error)

    @classmethod
    def error(cls, call: ToolCall, reason: str) -> ToolResult:
        """An error result the model reads: `Error: <reason>`."""
        return cls(call.id, call.name, f"Error: {reason}", True)


class ToolSet(list[dict[str, Any]]):
    """Offered tools, checked: a list of OpenAI function-tool schemas that checks calls.

    Build it once (at class level, or in `reset` when the tools depend on the episode) and
    return it from `Env.tools()`; `offered_tools(env)` then takes it as is. It is a `list`, so
    a receiver that asks for one (ms-swift's template, `json.dumps`) takes it as it is, but it
    cannot change: its checkers were compiled from these schemas. `copy()` gives plain lists
    and dicts to change; `+` and slices give plain lists too.
    """

    def __init__(self, tools: Sequence[Mapping[str, Any]], label: str = "the env"):
        """Raises InvalidToolsError listing every problem of `tools`."""
        schemas, checkers, problems = _read_tools(tools)
        if problems:
            raise InvalidToolsError(label, problems)
        super().__init__(schemas)
        self._text = json.dumps(schemas)  # for copies: one json.loads is 4x faster than deepcopy
        self._checkers = checkers
        self.names: tuple[str, ...] = tuple(checkers)
        listed = ", ".join(self.names[:_NAMES_SHOWN])
        more = len(self.names) - _NAMES_SHOWN
        self._listing = listed + (f" and {more} more" if more > 0 else "") if listed else "none"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and copied) as its schemas (its checkers are closures): rebuilt, so checked
        again."""
        return ToolSet, (list(self),)

    def __repr__(self) -> str:
        return f"ToolSet({list(self.names)!r})"

    def _unchangeable(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "a ToolSet cannot change (its checks were compiled from these schemas): take "
            "tools.copy() for a list to change, or build a new ToolSet"
        )

    append = extend = insert = pop = remove = clear = sort = reverse = _unchangeable
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _unchangeable
    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> list[dict[str, Any]]:  # type: ignore[override]
        """The schemas as new plain lists and dicts, for a receiver that may change them."""
        return json.loads(self._text)

    def check(self, call: ToolCall) -> dict[str, Any] | ToolResult:
        """The call's arguments, parsed and matching its tool's schema; else an error result
        (`is_error`) saying what to fix. Never raises: bounded work whatever the model wrote
        (`schema.WORK_LIMIT` steps at most)."""
        checker = self._checkers.get(call.name)
        if checker is None:
            return ToolResult.error(call, self._unknown(call.name))
        parsed = _parse_arguments(call.arguments)
        if isinstance(parsed, str):
            return ToolResult.error(call, f"the arguments of {call.name!r} {parsed}")
        mismatch = checker(parsed)
        if mismatch is None:
            return parsed
        if is_too_costly(mismatch):
            why = "are too costly to check against its parameters"
        else:
            why = "do not match its parameters"
        return ToolResult.error(call, f"the arguments of {call.name!r} {why}: {describe(mismatch)}")

    def _unknown(self, name: str) -> str:
        if not name:
            return f"the tool call has no function name. The tools are: {self._listing}."
        text = f"unknown tool {printable(repr(name), 100)}."
        close = did_you_mean(name, self.names)
        if close:
            text += f" Did you mean {close!r}?"
        return f"{text} The tools are: {self._listing}."


def function_tool(name: str, description: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI function tool whose arguments are an object of exactly `properties`, each one
    required: the shape of every tool the shipped envs offer."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": dict(properties),
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }


def offered_tools(env: Any) -> ToolSet:
    """The tools `env` offers now (call it after `reset`), checked: `env.tools()` as a ToolSet.

    Raises InvalidToolsError, naming the env's class, when they are not valid.
    """
    tools = env.tools()
    if isinstance(tools, ToolSet):
        return tools
    if type(tools) in (list, tuple) and not tools:  # a text env, asked every turn by `random`
        return _NO_TOOLS
    return ToolSet(tools, type(env).__name__)


def _read_tools(
    tools: Any,
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str]]:
    """(schemas, a checker per name, problems) of what an env offered."""
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Sequence):
        return [], {}, [f"tools must be a list of function tools, not {type(tools).__name__}"]
    if len(tools) > MAX_TOOLS:
        return [], {}, [f"{len(tools)} tools offered; at most {MAX_TOOLS}"]
    schemas, checkers, problems = [], {}, []
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        try:
            schema, name, checker = _read_tool(tool, where)
        except SchemaError as error:
            problems.append(str(error))
            continue
        if name in checkers:
            problems.append(f"{where}: duplicate tool name {name!r}")
            continue
        schemas.append(schema)
        checkers[name] = checker
    return schemas, checkers, problems


def _read_tool(tool: Any, where: str) -> tuple[dict[str, Any], str, Any]:
    if not isinstance(tool, Mapping):
        raise SchemaError(where, f"must be an object, not {short_repr(tool)}")
    _known_keys(tool, _TOOL_KEYS, where)
    if tool.get("type") != "function":
        raise SchemaError(where, f"'type' must be 'function' (got {short_repr(tool.get('type'))})")
    function = tool.get("function")
    where = f"{where}.function"
    if not isinstance(function, Mapping):
        raise SchemaError(where, "must be an object with 'name', 'description' and 'parameters'")
    _known_keys(function, _FUNCTION_KEYS, where)
    name = function.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise SchemaError(
            f"{where}.name", f"must match ^[a-zA-Z0-9_-]{{1,64}}$ (got {short_repr(name)})"
        )
    description = function.get("description", "")
    if not isinstance(description, str):
        raise SchemaError(f"{where}.description", "description must be a string")
    if not isinstance(function.get("strict", False), bool):
        raise SchemaError(f"{where}.strict", "must be true or false")
    parameters = function.get("parameters", _EMPTY_PARAMETERS)
    if not isinstance(parameters, Mapping) or parameters.get("type") != "object":
        raise SchemaError(
            f"{where}.parameters",
            'parameters must be a JSON Schema object with "type": "object"',
        )
    checker = compile_schema(dict(parameters), f"{where}.parameters")
    try:  # a plain copy the env cannot change afterwards, and proof it is JSON
        schema = json.loads(
            json.dumps({**tool, "function": {**function, "parameters": parameters}})
        )
    except (TypeError, ValueError) as error:
        raise SchemaError(where, f"is not JSON: {error}") from None
    return schema, name, checker


def _known_keys(value: Mapping[str, Any], known: Sequence[str], where: str) -> None:
    for key in value:
        if key not in known:
            close = did_you_mean(str(key), known)
            hint = f"; did you mean {close!r}?" if close else ""
            raise SchemaError(where, f"unknown key {short_repr(key)}{hint}")


def _parse_arguments(text: str) -> dict[str, Any] | str:
    """The arguments as a JSON object, or the end of a sentence saying why they are not one."""
    if len(text) > MAX_ARGUMENT_CHARS:
        return f"are {len(text):,} characters long; at most {MAX_ARGUMENT_CHARS:,}."
    if _LONE_SURROGATE.search(text):
        return "hold a lone surrogate: write valid Unicode text."
    if not text or text.isspace():
        return {}
    decoder = _DECODER
    if len(text) > _FLOAT_DIGITS and _LONG_DIGITS.search(text):
        decoder = _RANGE_DECODER
    try:
        value = decoder.decode(text)
    except _OutOfRange as error:
        return (
            f"hold the number {printable(error.text, 40)}, past the range of a float "
            "(about 1.8e308): write a smaller number."
        )
    except RecursionError:
        return f"are nested more than {MAX_ARGUMENT_DEPTH} deep."
    except json.JSONDecodeError as error:
        return (
            f"are not valid JSON: {error.msg} at line {error.lineno} column {error.colno}. "
            "Write one JSON object."
        )
    except ValueError as error:  # NaN or Infinity, an integer of more digits than Python reads
        return f"are not valid JSON: {printable(str(error), 200)}. Write one JSON object."
    if type(value) is not dict:
        kind = {list: "a list", str: "a string", type(None): "null"}.get(type(value), "a number")
        if type(value) is bool:
            kind = "a boolean"
        return f"must be a JSON object ({{...}}), not {kind}."
    if (text.count("[") + text.count("{")) > MAX_ARGUMENT_DEPTH and deeper_than(
        value, MAX_ARGUMENT_DEPTH
    ):
        return f"are nested more than {MAX_ARGUMENT_DEPTH} deep."
    if "\\u" in text and _holds_surrogate(value):
        return "hold a lone surrogate: write valid Unicode text."
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _OutOfRange(ValueError):
    """A number in the arguments past the float range (`1e400`, 400 digits): Python reads the
    one as infinity and the other as an int no float holds; JSON has neither, like NaN."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0:  # inf - inf is nan
        raise _OutOfRange(text)
    return value


def _float_sized_int(text: str) -> int:
    value = int(text)
    if len(text) > _FLOAT_DIGITS and abs(value) > _FLOAT_MAX:
        raise _OutOfRange(text)
    return value


_FLOAT_MAX = sys.float_info.max
_FLOAT_DIGITS = 308
"""An integer past the float range has more digits than this."""
_LONG_DIGITS = re.compile(rf"\d{{{_FLOAT_DIGITS + 1}}}")
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite_float)
"""Made once: `json.loads` with any keyword builds a decoder per call (microseconds). Each
number with a point or an exponent goes through `_finite_float` (about 0.1 us more each)."""
_RANGE_DECODER = json.JSONDecoder(
    parse_constant=_no_constant, parse_float=_finite_float, parse_int=_float_sized_int
)
"""Checks each integer too, so it reads only text that holds 309 digits in a row."""


def _holds_surrogate(value: Any) -> bool:
    """Whether a string (key or value) in `value` holds a lone surrogate (walked, no recursion)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is str:
            if _LONE_SURROGATE.search(item):
                return True
        elif type(item) is dict:
            pending.extend(item)
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
    return False


_NO_TOOLS = ToolSet([])
"""What a text env offers: shared, as a ToolSet cannot change."""
