"""Which MCP servers exist: the operator's (`SWIFT_GYM_MCP_SERVERS`) and those declared in code.

A server is a name the operator (or an env package's author, in code) gives to a stdio command
or a streamable-HTTP URL, with its own settings (timeouts, result size). Rows and env configs
only ever pick among these names: nothing in a row becomes a command, a URL or a header. The
`env` of a command and the `headers` of a URL are secrets (`SecretStr`): they never appear in
a repr, an error or a record.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from ..errors import ConfigProblem, EnvUnavailableError, SwiftGymError, did_you_mean, short_repr

SERVERS_VARIABLE = "SWIFT_GYM_MCP_SERVERS"
"""The operator's servers: a JSON object `{"name": {server}, ...}`, or the path of a file that
holds one. Unset or empty: none (only servers declared in code)."""
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
"""A server name: what a row may write to pick a server."""
_SHOWN = 20


class MCPServerError(SwiftGymError, RuntimeError):
    """An MCP server could not be started or reached, or failed while listing its tools: the
    episode cannot be played as configured. Names the server, never its settings' secrets."""


class MCPServerDownError(MCPServerError, EnvUnavailableError):
    """Nothing accepts a connection at an HTTP server's URL: no episode can use it now
    (`swift-gym eval` then starts no new episode, as for any env whose server is down)."""


class _Server(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    call_timeout_seconds: float = Field(
        30.0, gt=0, le=3600, description="Each tool call's limit; past it the call is an error."
    )
    connect_timeout_seconds: float = Field(
        30.0, gt=0, le=600, description="Starting the session and listing its tools."
    )
    max_result_chars: int = Field(
        16_384, ge=256, le=4_194_304, description="Characters of a tool result the model reads."
    )
    max_message_bytes: int = Field(
        64 * 1024 * 1024,
        ge=65_536,
        le=1 << 30,
        description="The longest message a stdio server may send; a longer one ends its session.",
    )


class StdioServer(_Server):
    """A server this process starts per episode: `command` (argv, no shell), its `env` (added
    to a minimal one: PATH, HOME, LANG) and `cwd`; in a PID namespace of its own unless
    `pid_namespace` is false (`server_process`)."""

    command: list[str] = Field(min_length=1, max_length=256)
    env: dict[str, SecretStr] = Field(default_factory=dict)
    cwd: str | None = None
    pid_namespace: bool = Field(
        True,
        description="Run the server as PID 1 of a PID namespace of its own (bubblewrap), so "
        "that every process it starts ends with it; false: in a process group of its own, "
        "which a process that calls setsid leaves.",
    )

    def describe(self) -> str:
        return f"stdio: {Path(self.command[0]).name}"

    def secrets(self) -> dict[str, str]:
        """What the server must never be heard to say: each value of its `env`, by name."""
        return {f"env {key}": value.get_secret_value() for key, value in self.env.items()}


class HttpServer(_Server):
    """A streamable-HTTP server already running at `url`; `headers` go with every request."""

    url: str = Field(pattern=r"^https?://", max_length=2048)
    headers: dict[str, SecretStr] = Field(default_factory=dict)

    def describe(self) -> str:
        return f"http: {public_url(self.url)}"

    def secrets(self) -> dict[str, str]:
        """What the server must never be heard to say: each value of its `headers`, and its
        URL's password and query values (where tokens go), by name."""
        found = {f"header {key}": value.get_secret_value() for key, value in self.headers.items()}
        parts = urlsplit(self.url)
        if parts.password:
            found["URL password"] = unquote(parts.password)
        for key, value in parse_qsl(parts.query):
            found[f"URL query {key}"] = value
        return found


ServerSpec = StdioServer | HttpServer


def public_url(url: str) -> str:
    """`url` without credentials, query or fragment (which may hold a token): for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def read_servers(value: Any) -> dict[str, ServerSpec]:
    """Check a mapping of names to server settings (as the operator's variable holds them).

    Each entry is exactly one kind: `command` (stdio) or `url` (HTTP). Raises ValueError
    listing the problems by place, never a value (headers and env hold secrets)."""
    if not isinstance(value, Mapping):
        raise ValueError("MCP servers must be a JSON object of names to server settings")
    checked: dict[str, ServerSpec] = {}
    problems = []
    for name, entry in value.items():
        label = short_repr(name)
        if not isinstance(name, str) or not NAME.fullmatch(name):
            problems.append(f"{label}: a server name must match {NAME.pattern}")
        elif not isinstance(entry, Mapping) or ("command" in entry) == ("url" in entry):
            problems.append(f"{name}: give an object with 'command' (stdio) or 'url' (HTTP)")
        else:
            kind = StdioServer if "command" in entry else HttpServer
            try:
                checked[name] = kind.model_validate(dict(entry))
            except ValidationError as error:
                problems.extend(
                    f"{name}.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()
                )
    if problems:
        raise ValueError("; ".join(problems[:10]))
    return checked


def operator_servers(environ: Mapping[str, str] | None = None) -> dict[str, ServerSpec]:
    """The servers the operator configured in `SWIFT_GYM_MCP_SERVERS` (a JSON object, or a path
    to a file of one). Raises ValueError naming the variable when it is not valid."""
    raw = (os.environ if environ is None else environ).get(SERVERS_VARIABLE, "").strip()
    return dict(_parsed(raw))


@functools.lru_cache(maxsize=8)
def _parsed(raw: str) -> tuple[tuple[str, ServerSpec], ...]:
    if not raw:
        return ()
    import json

    text, where = raw, SERVERS_VARIABLE
    if not raw.startswith("{"):
        where = f"{SERVERS_VARIABLE} (the file {raw})"
        try:
            text = Path(raw).read_text(encoding="utf-8")
        except OSError as error:
            raise ValueError(
                f"{SERVERS_VARIABLE} must be a JSON object or the path of a JSON file; "
                f"cannot read {raw!r}: {error.strerror}"
            ) from None
    try:
        value = json.loads(text)
        return tuple(read_servers(value).items())
    except ValueError as error:  # JSONDecodeError is one: its message holds no value
        raise ValueError(f"{where} is not valid: {error}") from None


def pick(
    names: Sequence[str], available: Mapping[str, ServerSpec], field: str = "mcp_servers"
) -> tuple[dict[str, ServerSpec], list[ConfigProblem]]:
    """The servers `names` pick, and a problem for each name that is not configured (which
    lists the configured ones, never their settings)."""
    chosen: dict[str, ServerSpec] = {}
    problems = []
    known = sorted(available)
    listed = ", ".join(known[:_SHOWN])
    if len(known) > _SHOWN:
        listed += f" and {len(known) - _SHOWN} more"
    for index, name in enumerate(names):
        spec = available.get(name)
        if spec is None:
            hint = (
                f"configured MCP servers: {listed}"
                if known
                else f"no MCP server is configured (the operator sets {SERVERS_VARIABLE})"
            )
            problems.append(
                ConfigProblem(
                    f"{field}.{index}",
                    "unknown MCP server",
                    name,
                    suggestion=did_you_mean(name, known),
                    hint=hint,
                )
            )
        else:
            chosen[name] = spec
    return chosen, problems
