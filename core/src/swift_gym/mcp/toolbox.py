"""`MCPTools`: the tools of an episode's MCP servers, for any env, as `PythonTool` is.

An env picks servers by name (`MCPTools.pick(names)`: among the operator's and those declared in
code), opens them in `reset` (`await tools.open()`: one session per server, their tools listed),
offers `tools.tools` (a checked `ToolSet`), answers each call with `await tools.call(call)` and
closes them in `close()`. Sessions live on the background loop, so reset and step may run on
different loops. A tool keeps its server's name unless two servers offer the same one (then
both become `<server>__<tool>`) or the name is not one OpenAI accepts (its other characters
become `_`). A tool whose input schema the checker cannot read (`$ref`, `oneOf`...) is left
out and named in `skipped`. An env that is dropped without `close()` (a cut-off episode under
ms-swift's own scheduler) closes its sessions when it is garbage-collected.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InvalidConfigError, InvalidToolsError
from ..install_hints import extra_hint
from ..placement import background
from ..tools.toolset import NAME, ToolCall, ToolResult, ToolSet
from .servers import MCPServerError, ServerSpec, operator_servers, pick

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .connection import ServerConnection

MAX_DESCRIPTION_CHARS = 2000
"""A tool's description is cut here: it goes into every prompt of the episode."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class MCPTools:
    """The MCP tools of one episode at a time: `open()`, `tools`, `call()`, `close()`."""

    def __init__(self, servers: Mapping[str, ServerSpec]):
        self.servers = dict(servers)
        self.tools = ToolSet([], "MCP tools")
        """The offered tools (valid after `open()`), checked."""
        self.skipped: list[str] = []
        """Tools left out, each `server/tool: why`."""
        self.calls = 0
        self.errors = 0
        self._connections: list[ServerConnection] = []
        self._routes: dict[str, tuple[ServerConnection, str]] = {}
        self._finalizer: weakref.finalize[..., Any] | None = None

    @classmethod
    def pick(
        cls,
        names: Sequence[str],
        declared: Mapping[str, ServerSpec] | None = None,
        label: str = "the env",
        field: str = "mcp_servers",
    ) -> MCPTools:
        """The servers `names` pick among the operator's (`SWIFT_GYM_MCP_SERVERS`) and those
        `declared` in code (the operator's win a clash). Raises InvalidConfigError, as for a
        bad config, for a name that is not configured, listing those that are."""
        available = {**(declared or {}), **operator_servers()}
        chosen, problems = pick(names, available, field)
        if problems:
            raise InvalidConfigError(label, problems)
        return cls(chosen)

    @property
    def pids(self) -> list[int]:
        """The process ids of the episode's stdio servers (for tests and diagnostics)."""
        return [c.transport.pid for c in self._connections if c.transport.pid is not None]

    async def open(self) -> None:
        """Start a session with each server and list their tools (closing any earlier ones).
        Raises MCPServerError, having closed them all, when one cannot be opened."""
        await self.close()
        await background.run(self._open())
        self._finalizer = weakref.finalize(self, _close_later, self._connections)

    async def _open(self) -> None:
        try:
            from .connection import ServerConnection
        except ImportError as error:
            raise MCPServerError(
                f"MCP tools need the mcp package ({error}): {extra_hint('mcp')}"
            ) from None
        connections = [ServerConnection(name, spec) for name, spec in self.servers.items()]
        listed = await asyncio.gather(*(c.open() for c in connections), return_exceptions=True)
        failed = [item for item in listed if isinstance(item, BaseException)]
        if failed:
            await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
            raise failed[0]
        self._connections = connections
        self._routes, schemas, self.skipped = _offer(connections, listed)
        self.tools = ToolSet(schemas, "MCP tools")
        self.calls = self.errors = 0

    async def call(self, call: ToolCall) -> ToolResult:
        """Answer one call: its arguments checked, then sent to its server. Never raises for
        what the model wrote or what the server did (the result says it)."""
        checked = self.tools.check(call)
        self.calls += 1
        if isinstance(checked, ToolResult):
            self.errors += 1
            return checked
        connection, original = self._routes[call.name]
        text, is_error = await background.run(connection.call(original, checked))
        self.errors += is_error
        if is_error and not text.startswith("Error"):
            text = f"Error: {text}"
        return ToolResult.for_call(call, text, is_error)

    async def close(self) -> None:
        """End every session of the episode (stdio servers' processes included). Safe to call
        more than once."""
        connections, self._connections = self._connections, []
        self._routes = {}
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if connections:
            await background.run(_close_all(connections))


async def _close_all(connections: Sequence[ServerConnection]) -> None:
    await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


def _close_later(connections: list[ServerConnection]) -> None:
    """A dropped MCPTools' sessions, closed on the background loop (from any thread)."""
    try:
        loop = background.loop()
        loop.call_soon_threadsafe(lambda: loop.create_task(_close_all(connections)))
    except RuntimeError:  # interpreter shutting down: the atexit hook kills stdio servers
        pass


def _offer(
    connections: Sequence[ServerConnection], listed: Sequence[Any]
) -> tuple[dict[str, tuple[ServerConnection, str]], list[dict[str, Any]], list[str]]:
    """(offered name -> (connection, the server's name), schemas, skipped) of the tools."""
    pairs = [(c, tool) for c, tools in zip(connections, listed, strict=True) for tool in tools]
    plain = [_safe(tool.name) for _, tool in pairs]
    routes: dict[str, tuple[ServerConnection, str]] = {}
    schemas, skipped = [], []
    for (connection, tool), name in zip(pairs, plain, strict=True):
        if plain.count(name) > 1:
            name = _safe(f"{connection.name}__{tool.name}")
        base, number = name, 2
        while name in routes:
            name = f"{base[:60]}_{number}"
            number += 1
        description = (tool.description or tool.title or "")[:MAX_DESCRIPTION_CHARS]
        schema = {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": tool.inputSchema},
        }
        try:
            ToolSet([schema], "MCP tool")
        except InvalidToolsError as error:
            reason = "; ".join(error.problems)[:300]
            skipped.append(f"{connection.name}/{tool.name[:64]}: {reason}")
            continue
        routes[name] = (connection, tool.name)
        schemas.append(schema)
    return routes, schemas, skipped


def _safe(name: str) -> str:
    """`name` as a tool name OpenAI accepts."""
    safe = _UNSAFE.sub("_", name)[:64] or "tool"
    assert NAME.fullmatch(safe)
    return safe


__all__ = ["MCPServerError", "MCPTools"]
