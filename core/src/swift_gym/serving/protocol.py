"""The OpenEnv WebSocket protocol: the frames a client sends, the frames the server answers.

A client sends `{"type": "reset" | "step" | "state" | "close", "data": {...}}`. The server
answers as openenv's own server does: `{"type": "observation", "data": {"observation": {...},
"reward": x, "done": b, "metadata": {...}}}`, `{"type": "state", "data": {...}}`, or
`{"type": "error", "data": {"message": ..., "code": ...}}` (codes as openenv's `WSErrorCode`).
openenv-core 0.3.0's client drops the top-level `metadata` (0.10.0 reads it), so what a client
needs travels in the observation.

An env that offers tools is played through the same frames: the reset's observation carries the
`tools` (OpenAI function-tool schemas), a step's action the reply's `tool_calls` (OpenAI's
shape) beside its `message`, and the step's observation the `tool_results`, one per call, in
call order. An env that replaces the chat (an agent program that rewrote its history) adds the
whole chat to show (`messages`) and the tools offered now to that answer. A text env's frames
are what they always were.

swift-gym's one extension: `{"type": "oracle"}` asks for the served env's own reference reply
(`Env.oracle_reply`) in the episode being played, answered `{"type": "oracle", "data":
{"reply": text or assistant message}}`. A reset's `metadata` says whether the episode's env has
one served (`oracle`: true or false); an OpenEnv server without the extension says nothing, and
answers the frame UNKNOWN_TYPE. The oracle runs on the server, where the env's hidden state is;
a client can only ask for what the operator serves (`swift-gym serve --no-oracle` serves none).

Everything here is pure: text in, values or `ProtocolError` out, and the answer's text. Frames
come from the network, so they are bounded in size and nesting before anything walks them, and
messages never echo more than a short excerpt of what was sent.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .. import json_text
from ..errors import short_repr
from ..replies import MAX_TOOL_CALLS, tool_calls
from ..tools.toolset import ToolCall, ToolResult

INVALID_JSON = "INVALID_JSON"
"""The frame is no JSON object, nests too deep, or is too big."""
UNKNOWN_TYPE = "UNKNOWN_TYPE"
VALIDATION_ERROR = "VALIDATION_ERROR"
"""The frame is JSON but its data is wrong: a bad env_config, an unknown field, an env not
served."""
EXECUTION_ERROR = "EXECUTION_ERROR"
"""The env raised, or did not answer within the step timeout."""
CAPACITY_REACHED = "CAPACITY_REACHED"
SESSION_ERROR = "SESSION_ERROR"
"""Not now: a step before any reset or after the episode ended, an idle session closed."""

FRAME_TYPES = ("reset", "step", "state", "close", "oracle")
RESET_FIELDS = ("env_config", "seed", "episode_id")


class ProtocolError(Exception):
    """A frame the server refuses: answered with an error frame, and the session goes on."""

    def __init__(self, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def frame(self) -> str:
        return error_frame(self.message, self.code, **self.extra)


def parse_frame(raw: str | bytes, max_bytes: int) -> tuple[str, dict[str, Any]]:
    """`(type, data)` of one client frame; raises `ProtocolError` saying what to fix."""
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ProtocolError(
            INVALID_JSON,
            f"frame of {size} bytes is over this server's limit of {max_bytes} "
            "(swift-gym serve --max-message-bytes)",
        )
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProtocolError(INVALID_JSON, f"binary frame is not UTF-8 text: {error}") from None
    try:
        frame = json_text.loads(raw)
    except json_text.TooDeepError as error:
        raise ProtocolError(INVALID_JSON, f"invalid JSON: {error}") from None
    except ValueError as error:  # json.JSONDecodeError: says where, never echoes the frame
        raise ProtocolError(INVALID_JSON, f"invalid JSON: {error}") from None
    if not isinstance(frame, dict):
        raise ProtocolError(
            INVALID_JSON,
            f'a frame is a JSON object {{"type": ..., "data": {{...}}}}, not {_kind(frame)}',
        )
    kind = frame.get("type")
    if kind not in FRAME_TYPES:
        raise ProtocolError(
            UNKNOWN_TYPE,
            f"unknown frame type {short_repr(kind)}: expected one of {', '.join(FRAME_TYPES)}",
        )
    data = frame.get("data", {})
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProtocolError(
            VALIDATION_ERROR, f"{kind} data must be a JSON object, not {_kind(data)}"
        )
    return kind, data


def reply_of(action: dict[str, Any]) -> str:
    """The reply the model wrote, from a step's action.

    The action is `{"message": reply}`. ms-swift's stock `parse_action` sends a reply that parses
    as a JSON object as that object (so `message` is missing, or not a string); the JSON text of
    the action is then the closest thing to what the model wrote, and is played as the reply.
    Other fields beside a string `message` (a typed OpenEnv action's `metadata`) are ignored.
    """
    message = action.get("message")
    if isinstance(message, str):
        return message
    return json_text.dumps(action)


def read_action(action: dict[str, Any]) -> tuple[str, list[ToolCall]]:
    """The reply's text and tool calls, from a step's action; raises `ProtocolError`.

    A reply that calls tools is `{"message": text or null, "tool_calls": [...]}`, the calls in
    OpenAI's shape (`{"id", "type": "function", "function": {"name", "arguments"}}`), read as
    `swift_gym.tool_calls` reads a reply's: a call that cannot be read is still a call (with an
    empty name), so the env answers it with an error the model reads. An action without
    `tool_calls` is read by `reply_of`, as before tools.
    """
    if "tool_calls" not in action:
        return reply_of(action), []
    raw = action["tool_calls"]
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise ProtocolError(
            VALIDATION_ERROR, f"tool_calls must be a JSON array of tool calls, not {_kind(raw)}"
        )
    if len(raw) > MAX_TOOL_CALLS:
        raise ProtocolError(
            VALIDATION_ERROR, f"{len(raw)} tool calls in one step: at most {MAX_TOOL_CALLS}"
        )
    message = action.get("message")
    if message is None:
        message = ""
    if not isinstance(message, str):
        raise ProtocolError(
            VALIDATION_ERROR,
            f"message must be a string (or null, in a reply that only calls tools), not "
            f"{_kind(message)}",
        )
    return message, tool_calls({"role": "assistant", "tool_calls": raw})


def result_fields(result: ToolResult) -> dict[str, Any]:
    """A tool result as the observation carries it."""
    return {
        "tool_call_id": result.tool_call_id,
        "name": result.name,
        "content": result.content,
        "is_error": result.is_error,
    }


def observation_frame(
    text: str,
    reward: float | None,
    done: bool,
    info: dict[str, Any],
    metadata: dict[str, Any],
    system_prompt: str | None = None,
    *,
    tools: list[dict[str, Any]] | None = None,
    tool_results: list[dict[str, Any]] | None = None,
    messages: list[dict[str, Any]] | None = None,
) -> str:
    """The answer to a reset (with the system prompt, and the tools if the env offers any) or a
    step (with the tool results, in a tool env); `messages` (and the tools offered now) when the
    env replaced the chat.

    The observation holds what a client needs (the text the model reads, the system prompt at
    reset, the env's info), since openenv-core 0.3.0 hands its caller nothing else.
    """
    observation: dict[str, Any] = {"text": text}
    if system_prompt is not None:
        observation["system_prompt"] = system_prompt
    if tools is not None:
        observation["tools"] = tools
    if tool_results is not None:
        observation["tool_results"] = tool_results
    if messages is not None:
        observation["messages"] = messages
    observation["info"] = info
    data = {"observation": observation, "reward": reward, "done": done, "metadata": metadata}
    return _frame("observation", data)


def state_frame(state: dict[str, Any]) -> str:
    return _frame("state", state)


def oracle_frame(reply: str | dict[str, Any]) -> str:
    """The answer to an oracle frame: the env's reference reply (text, or an assistant
    message with its tool calls)."""
    return _frame("oracle", {"reply": reply})


def error_frame(message: str, code: str, **extra: Any) -> str:
    return _frame("error", {"message": message, "code": code, **extra})


_SURROGATE = re.compile("[\ud800-\udfff]")


def _frame(kind: str, data: dict[str, Any]) -> str:
    """Strict JSON: no NaN (a null instead), lone surrogates escaped, odd values as strings.

    Every answer is one of these, so the plain case goes straight to the C encoder: what it
    refuses (NaN, values JSON has no type for, keys it cannot write), text with a lone surrogate
    and anything nested deeper than a client reads go through `json_text`'s careful walk. (The
    one difference: `True`, `False` and `None` as dict keys come out as `json.dumps` writes
    them, `"true"`, `"false"`, `"null"`.)
    """
    frame = {"type": kind, "data": data}
    try:
        text = json.dumps(frame, ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return json_text.dumps(frame, strict=True)
    if _SURROGATE.search(text) or (
        text.count("[") + text.count("{") > json_text.MAX_DEPTH
        and json_text.deeper_than(frame, json_text.MAX_DEPTH)
    ):
        return json_text.dumps(frame, strict=True)
    return text


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number" if isinstance(value, (int, float)) else "a value")
