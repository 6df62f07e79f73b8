"""SFT rows from episode records: each episode's chat exactly as the policy was shown it, in
ms-swift's `messages` format, so good episodes become a warm-start dataset for `swift sft`.

The chat is rebuilt the way ms-swift's gym scheduler (and `swift-gym eval`) builds it: the
system prompt from reset, if not empty (else none: the template then adds its own default, in
GRPO and in SFT alike); the first observation as the user message (it replaces the dataset's
`<placeholder>` message, which the model never sees); then per turn the reply as assistant and
the env's next observation as user. The observation after the last reply (the env said done, or
max_turns cut it off) is never shown, so a row ends with the model's last reply, and each reply
is a training target (`swift sft`'s default loss_scale trains on every assistant message).

A row holds `messages` only: ms-swift renames some extra columns (a `system_prompt` column would
become the system message), so provenance stays in the trajectory file.

A tool episode (its record keeps the `tools` the env offered) becomes a row of ms-swift's agent
format, as `swift sft --agent_template ...` reads it: `tools` (the schemas as a JSON string) and
`messages` in which a turn is its reply text as assistant (left out when empty and the model
made calls), one `tool_call` message per call (`{"name": ..., "arguments": {...}}` as JSON), then,
unless it was the last turn, one `tool_response` message per result and the observation as user
when it is not empty (the results may say it all). A call whose arguments are not a JSON object
cannot be written in that format: its episode is skipped and named.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import short_repr
from ..tools.toolset import ToolCall
from .records import NOT_PLAYED

FAILED = "error"
"""The status of an episode the env or the policy broke: its chat stops mid-way."""
NEVER_EXPORTED = {FAILED: "failed", NOT_PLAYED: "not played"}
"""Statuses that are no episode to learn from, and how a summary names them."""
NOT_A_CONVERSATION = "not a conversation"
LONE_SURROGATE = "with a lone surrogate"
BAD_ARGUMENTS = "with tool arguments that are not a JSON object"
_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}
"""Characters JSON may hold raw that `str.splitlines` reads as line ends."""

Message = dict[str, str]


class NotAConversation(ValueError):
    """A record the chat cannot be rebuilt from exactly; the message says which field and why."""

    def __init__(self, detail: str, reason: str = NOT_A_CONVERSATION):
        super().__init__(detail)
        self.reason = reason


def _text(value: Any, where: str) -> str:
    """`value` if it is text `swift sft` can load, else NotAConversation naming `where`."""
    if not isinstance(value, str):
        raise NotAConversation(f"{where} is {short_repr(value, 60)}, not a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        # valid in JSON and in our records, but swift sft's JSON reader (pyarrow) then refuses
        # the whole file; the model was never shown a well-formed text here either
        found = short_repr(value[error.start : error.start + 1])
        raise NotAConversation(
            f"{where} holds a lone surrogate ({found} at {error.start}), which swift sft "
            "cannot load",
            LONE_SURROGATE,
        ) from None
    return value


def conversation(record: dict[str, Any]) -> list[Message]:
    """The chat of `record` as the policy saw it, ending with its last reply (see the module
    docstring); NotAConversation if the record does not hold it."""
    _text(record.get("status"), "status")
    prompt = record.get("system_prompt")
    messages: list[Message] = []
    if prompt is not None and _text(prompt, "system_prompt"):
        messages.append({"role": "system", "content": prompt})
    messages.append({"role": "user", "content": _text(record.get("observation"), "observation")})
    turns = record.get("turns")
    if not isinstance(turns, list) or not turns:
        raise NotAConversation("no turns: the model said nothing")
    with_tools = record.get("tools") is not None
    for number, turn in enumerate(turns, 1):
        if not isinstance(turn, dict):
            raise NotAConversation(f"turn {number} is {short_repr(turn, 60)}, not an object")
        reply = _text(turn.get("reply"), f"turn {number} reply")
        calls = _tool_calls(turn, number)
        if reply or not calls:
            messages.append({"role": "assistant", "content": reply})
        messages.extend(calls)
        if number < len(turns):
            results = _tool_responses(turn, number)
            messages.extend(results)
            observation = _text(turn.get("observation"), f"turn {number} observation")
            if observation or not with_tools:
                messages.append({"role": "user", "content": observation})
    return messages


def _turn_list(turn: dict[str, Any], key: str, number: int) -> list[Any]:
    value = turn.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise NotAConversation(f"turn {number} {key} is {short_repr(value, 60)}, not a list")
    return value


def _fields(item: Any, keys: tuple[str, ...], where: str) -> list[str]:
    if not isinstance(item, dict):
        raise NotAConversation(f"{where} is {short_repr(item, 60)}, not an object")
    return [_text(item.get(key), f"{where} {key}") for key in keys]


def _tool_calls(turn: dict[str, Any], number: int) -> list[Message]:
    """The turn's calls as ms-swift `tool_call` messages."""
    messages = []
    for index, item in enumerate(_turn_list(turn, "tool_calls", number), 1):
        where = f"turn {number} call {index}"
        name, arguments = _fields(item, ("name", "arguments"), where)
        try:
            parsed = ToolCall("", name, arguments).parsed_arguments()
            # strict JSON (no NaN), which swift sft's reader loads
            content = json.dumps(
                {"name": name, "arguments": parsed}, ensure_ascii=False, allow_nan=False
            )
        except (ValueError, RecursionError):
            parsed = None
        if not isinstance(parsed, dict):
            raise NotAConversation(
                f"{where} arguments are not JSON of an object ({short_repr(arguments, 60)}): "
                "ms-swift's agent format cannot hold them",
                BAD_ARGUMENTS,
            )
        messages.append({"role": "tool_call", "content": _text(content, f"{where} arguments")})
    return messages


def _tool_responses(turn: dict[str, Any], number: int) -> list[Message]:
    """The turn's results as ms-swift `tool_response` messages."""
    messages = []
    for index, item in enumerate(_turn_list(turn, "tool_results", number), 1):
        (content,) = _fields(item, ("content",), f"turn {number} result {index}")
        messages.append({"role": "tool_response", "content": content})
    return messages


def _tools(record: dict[str, Any]) -> str:
    """The record's `tools` as the JSON string an ms-swift agent row holds."""
    tools = record["tools"]
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        raise NotAConversation(f"tools is {short_repr(tools, 60)}, not a list of objects")
    return _text(json.dumps(tools, ensure_ascii=False), "tools")


def sft_row(record: dict[str, Any]) -> dict[str, Any]:
    """One `swift sft` dataset row from `record`: `{"messages": [...]}`, with `tools` first for
    a tool episode (see the module docstring)."""
    messages = conversation(record)
    if record.get("tools") is None:
        return {"messages": messages}
    return {"tools": _tools(record), "messages": messages}


def row_line(row: dict[str, Any]) -> str:
    """`row` as one JSON line: non-ASCII text as it is, controls as JSON escapes, and the
    characters some line readers split on (U+2028, U+2029, U+0085) escaped too."""
    text = json.dumps(row, ensure_ascii=False)
    for char, escape in _LINE_BREAKS.items():
        text = text.replace(char, escape)
    return text


@dataclass(frozen=True)
class Selection:
    """Which played episodes to export: all of them unless narrowed. Failed and unplayed
    episodes are never exported, whatever the selection."""

    statuses: Collection[str] | None = None
    """Only episodes that ended with one of these statuses (`goal`, `done`...)."""
    min_reward: float | None = None
    """Only episodes whose total reward is at least this."""
    successful: bool = False
    """Only episodes whose record says `success`."""

    def __post_init__(self) -> None:
        for status in self.statuses or ():
            if status in NEVER_EXPORTED:
                raise ValueError(
                    f"cannot select status {status}: {NEVER_EXPORTED[status]} episodes are "
                    "never exported (their chat was cut short or never began)"
                )
        if self.min_reward is not None and not math.isfinite(self.min_reward):
            raise ValueError(f"the minimum reward must be a finite number, not {self.min_reward}")

    def skip_reason(self, record: dict[str, Any]) -> str | None:
        """Why `record` is not exported, in words a summary can count; None to export it."""
        status = record.get("status")
        if isinstance(status, str) and status in NEVER_EXPORTED:
            return NEVER_EXPORTED[status]
        if self.statuses is not None and status not in self.statuses:
            shown = status if isinstance(status, str) else short_repr(status, 40)
            return f"status {shown} (not selected)"
        if self.min_reward is not None:
            reward = record.get("total_reward")
            if isinstance(reward, bool) or not isinstance(reward, (int, float)):
                return "no total reward"
            if not reward >= self.min_reward:
                return f"total reward below {self.min_reward:g}"
        if self.successful and record.get("success") is not True:
            return "not successful"
        return None


@dataclass
class ExportCounts:
    """What an export did: rows written, and episodes skipped by reason."""

    written: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    problems: int = 0
    """Of the skipped: records that hold no chat (see `NotAConversation`)."""

    @property
    def episodes(self) -> int:
        return self.written + sum(self.skipped.values())

    def summary(self) -> str:
        """`3 failed, 1 not played`: the reasons, most frequent first."""
        return ", ".join(f"{count} {reason}" for reason, count in self.skipped.most_common())


def sft_lines(
    records: Iterable[dict[str, Any]],
    selection: Selection,
    counts: ExportCounts,
    on_problem: Callable[[dict[str, Any], NotAConversation], None] | None = None,
) -> Iterator[str]:
    """The JSON line (see `row_line`) of each record `selection` keeps, counted in `counts`;
    a record that holds no chat is skipped and passed to `on_problem`."""
    for record in records:
        reason = selection.skip_reason(record)
        if reason is None:
            try:
                line = row_line(sft_row(record))
            except NotAConversation as error:
                reason = error.reason
                counts.problems += 1
                if on_problem is not None:
                    on_problem(record, error)
        if reason is not None:
            counts.skipped[reason] += 1
            continue
        counts.written += 1
        yield line
