"""The OpenEnv WebSocket protocol as a client speaks it: one env per connection at `/ws`.

Client frames: `{"type": "reset", "data": {...}}`, `{"type": "step", "data": {action}}`,
`{"type": "close"}`. Server frames: `{"type": "observation", "data": {"observation": {...},
"reward": x, "done": b, "metadata": {...}}}` or `{"type": "error", "data": {"message": ...,
"code": ...}}`. openenv-core 0.3 sends `metadata` inside the observation, openenv 0.10 beside it:
both are read. What a server sends is untrusted: sizes are bounded by the socket, nesting by
`json_text.loads`, and anything that is not such a frame is a `ProtocolError` naming what is
wrong, never a KeyError.

A served env that offers tools (`swift-gym serve`) adds `tools` to the reset's observation and
`tool_results` to each step's; a step's action then carries the reply's `tool_calls`; one that
replaced the chat adds `messages` (and the tools offered now). They are read here with the same
care: tools checked as any env's are (`ToolSet`), results field by field, messages by role.

swift-gym's oracle extension: where a reset's metadata says `"oracle": true`, an oracle frame
gets the served env's reference reply for the episode (`oracle_frame`, `parse_oracle`); the
reply is bounded (`MAX_ORACLE_CHARS`) and must be text or an assistant message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NoReturn
from urllib.parse import urlsplit, urlunsplit

from ..errors import EnvUnavailableError, InvalidToolsError, SwiftGymError, printable, short_repr
from ..json_text import TooDeepError, dumps, loads
from ..tools.toolset import ToolResult, ToolSet

MAX_CODE_CHARS = 100
"""An error frame's code is shown up to this many characters (OpenEnv's codes: ~20)."""
MAX_ORACLE_CHARS = 100_000
"""An oracle reply's JSON text is read up to this many characters (a reply a model would write,
a whole program included); a longer one is refused."""


class RemoteEnvError(SwiftGymError, RuntimeError):
    """The remote env could not be played: the server refused, went away or said nonsense."""


class ServerDownError(RemoteEnvError, EnvUnavailableError):
    """No server (of the pool) accepts a connection: the env server is down or unreachable."""


class ProtocolError(RemoteEnvError):
    """A frame that is not what the protocol allows."""


class NoOracleError(RemoteEnvError, NotImplementedError):
    """The served env has no oracle reply to give: the server said so, or said nothing."""

    every_episode = True
    """Nor will the next episode's (the oracle policy stops the run rather than fail each)."""


class ServerError(RemoteEnvError):
    """An error frame: the server's message and code."""

    def __init__(self, url: str, code: str, message: str):
        super().__init__(f"{url}: {code}: {message}")
        self.code = code


@dataclass(frozen=True)
class Observation:
    """What one reset or step answered."""

    observation: Any
    reward: float
    done: bool
    metadata: dict[str, Any]


def socket_url(base_url: str) -> str:
    """`http://host:8000/prefix` -> `ws://host:8000/prefix/ws` (https -> wss)."""
    parts = urlsplit(base_url)
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.hostname:
        raise ValueError(f"{base_url!r} is not an http(s) or ws(s) URL")
    try:
        parts.port  # noqa: B018 (read to check it)
    except ValueError:
        raise ValueError(f"{base_url!r} has a port that is not a number from 0 to 65535") from None
    path = parts.path.rstrip("/")
    if not path.endswith("/ws"):
        path += "/ws"
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


def reset_frame(data: dict[str, Any]) -> str:
    return dumps({"type": "reset", "data": data})


def step_frame(action: dict[str, Any]) -> str:
    return dumps({"type": "step", "data": action})


def close_frame() -> str:
    return dumps({"type": "close"})


def oracle_frame() -> str:
    return dumps({"type": "oracle"})


def parse_frame(url: str, text: str | bytes) -> Observation:
    """An observation frame, or raise `ServerError` (an error frame) or `ProtocolError`."""
    kind, data = _frame(url, text)
    if kind != "observation":
        raise ProtocolError(f"{url} sent a frame of type {short_repr(kind, 40)}")
    observation = data.get("observation")
    reward = data.get("reward")
    if reward is None:
        reward = 0.0
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        raise ProtocolError(f"{url} sent reward {short_repr(reward, 40)}, not a number")
    try:
        reward = float(reward)  # an int of 400 digits: OverflowError
    except OverflowError:
        reward = math.inf
    if not math.isfinite(reward):
        shown = short_repr(data.get("reward"), 40)
        raise ProtocolError(f"{url} sent reward {shown}, not a finite number")
    done = data.get("done")
    if done is not None and not isinstance(done, bool):  # "false" would end the episode
        raise ProtocolError(f"{url} sent done {short_repr(done, 40)}, not true or false")
    metadata = data.get("metadata")
    if not isinstance(metadata, dict) and isinstance(observation, dict):
        metadata = observation.get("metadata")  # openenv-core 0.3
    return Observation(
        observation, reward, bool(done), metadata if isinstance(metadata, dict) else {}
    )


def tools_of(url: str, observation: Any) -> ToolSet | None:
    """The tools a reset's observation offers (`tools`), checked; None when it offers none."""
    raw = observation.get("tools") if isinstance(observation, dict) else None
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ProtocolError(f"{url} sent tools {short_repr(raw, 80)}, not a list of tools")
    if not raw:
        return None
    try:
        return ToolSet(raw, f"the server at {url}")
    except InvalidToolsError as error:
        raise ProtocolError(str(error)) from None


def messages_of(url: str, observation: Any) -> list[dict[str, Any]] | None:
    """The whole chat to show the model (`messages`: the served env replaced it), checked to
    be messages; None when the observation carries none."""
    raw = observation.get("messages") if isinstance(observation, dict) else None
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(
        isinstance(message, dict) and isinstance(message.get("role"), str) for message in raw
    ):
        raise ProtocolError(
            f"{url} sent messages {short_repr(raw, 80)}, not a list of chat messages"
        )
    return raw


def tool_results_of(url: str, observation: Any) -> list[ToolResult]:
    """The results a step's observation carries (`tool_results`); [] when it has none."""
    raw = observation.get("tool_results") if isinstance(observation, dict) else None
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ProtocolError(f"{url} sent tool_results {short_repr(raw, 80)}, not a list")
    results = []
    for index, item in enumerate(raw):
        fields = item if isinstance(item, dict) else {}
        texts = [fields.get(key) for key in ("tool_call_id", "name", "content")]
        is_error = fields.get("is_error", False)
        if not all(isinstance(text, str) for text in texts) or not isinstance(is_error, bool):
            raise ProtocolError(
                f"{url} sent tool_results[{index}] {short_repr(item, 80)}: a result is "
                '{"tool_call_id": str, "name": str, "content": str, "is_error": bool}'
            )
        results.append(ToolResult(texts[0], texts[1], texts[2], is_error))
    return results


def _frame(url: str, text: str | bytes) -> tuple[Any, dict[str, Any]]:
    """A frame's type and data (`{}` when it has none); raises `ServerError` for an error
    frame and `ProtocolError` for text that is no frame object, so each parser only checks
    the type it expects."""
    try:
        frame = loads(text)
    except TooDeepError as error:
        raise ProtocolError(f"{url} sent JSON {error}") from None
    except ValueError as error:
        raise ProtocolError(f"{url} sent no JSON: {short_repr(text, 80)} ({error})") from None
    if not isinstance(frame, dict):
        raise ProtocolError(f"{url} sent {short_repr(frame, 80)}, not a frame object")
    data = frame.get("data")
    data = data if isinstance(data, dict) else {}
    if frame.get("type") == "error":
        _raise(url, data.get("code"), data.get("message"))
    return frame.get("type"), data


def _raise(url: str, code: Any, message: Any) -> NoReturn:
    """A server's words, shown to people: bounded, control characters escaped."""
    raise ServerError(
        url,
        printable(code, MAX_CODE_CHARS) if isinstance(code, str) and code else "ERROR",
        printable(message, 2000) if isinstance(message, str) else short_repr(message, 200),
    )


def oracle_of(metadata: dict[str, Any]) -> bool | None:
    """What a reset's metadata says of the episode's oracle: true, false, or None when it says
    nothing (an OpenEnv server without swift-gym's extension) or nonsense."""
    value = metadata.get("oracle")
    return value if isinstance(value, bool) else None


def parse_oracle(url: str, text: str | bytes) -> str | dict[str, Any]:
    """The reply an oracle frame carries: text, or an assistant message (`{"role":
    "assistant", "content": str or null, "tool_calls": [...]}`); raises `ServerError` for an
    error frame, `ProtocolError` for anything else, bounded (`MAX_ORACLE_CHARS`)."""
    kind, data = _frame(url, text)
    if kind != "oracle":
        raise ProtocolError(
            f"{url} answered an oracle request with a frame of type "
            f"{short_repr(kind, 40)}, not oracle"
        )
    reply = data.get("reply")
    size = len(reply) if isinstance(reply, str) else len(dumps(reply))
    if size > MAX_ORACLE_CHARS:
        raise ProtocolError(
            f"{url} sent an oracle reply of {size:,} characters: at most {MAX_ORACLE_CHARS:,} "
            "are read"
        )
    if isinstance(reply, str):
        return reply
    problem = _message_problem(reply)
    if problem is not None or not isinstance(reply, dict):
        raise ProtocolError(
            f"{url} sent oracle reply {short_repr(reply, 80)}: {problem}; an oracle reply is "
            'text or {"role": "assistant", "content": str, "tool_calls": [...]}'
        )
    return reply


def _message_problem(reply: Any) -> str | None:
    """Why `reply` is no assistant message, or None."""
    if not isinstance(reply, dict):
        return f"it is {type(reply).__name__}, not text or a message"
    if reply.get("role", "assistant") != "assistant":
        return f"its role is {short_repr(reply.get('role'), 40)}, not assistant"
    content = reply.get("content")
    if content is not None and not isinstance(content, str):
        return f"its content is {type(content).__name__}, not text"
    calls = reply.get("tool_calls")
    if calls is not None and not (
        isinstance(calls, list) and all(isinstance(call, dict) for call in calls)
    ):
        return "its tool_calls is no list of calls"
    return None
