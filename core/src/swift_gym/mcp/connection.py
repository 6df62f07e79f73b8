"""`ServerConnection`: one episode's session with one MCP server, on the background loop.

The SDK's sessions are anyio objects bound to the loop, and to the task, that opened them: a
transport's context must be left by the task that entered it. ms-swift runs an episode's reset
and its steps on different loops (colocate mode), so every connection lives on swift-gym's one
background loop per process (`placement.background`), inside one owner task that opens the
transport and the session, lists the tools, and waits until `close()`; calls are made from other
tasks of that loop. Every method here runs on that loop (`MCPTools` sends them there).

A call never hangs and never raises: past the server's `call_timeout_seconds` it is an error
result; a server that died (or whose transport failed) answers every later call with an error
result saying so. Every error built from what the server said (its stderr, its error
messages, a tool's error result) has the server's secrets redacted (`redaction`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from mcp import ClientSession, McpError
from mcp.types import CONNECTION_CLOSED, ErrorData

from ..errors import printable
from .redaction import redact
from .results import result_text
from .servers import (
    HttpServer,
    MCPServerDownError,
    MCPServerError,
    ServerSpec,
    StdioServer,
    public_url,
)
from .stdio import Transport, stdio_streams

MAX_TOOLS_LISTED = 1024
"""Tools read from one server at most (pages of `tools/list` included)."""
CLOSE_WAIT = 3.0
"""Seconds `close()` waits for an open session to end orderly before cancelling it (a hung
HTTP server may never answer the DELETE that ends its session)."""


class ServerConnection:
    """A session with the server `name` (its settings `spec`), open from `open()` to `close()`."""

    def __init__(self, name: str, spec: ServerSpec):
        self.name = name
        self.spec = spec
        self.transport = Transport()
        self.gone: str | None = None
        """Why the session ended before `close()`, once it did."""
        self._session: ClientSession | None = None
        self._closing: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._broken: asyncio.Event | None = None

    @property
    def label(self) -> str:
        return f"MCP server {self.name!r} ({self.spec.describe()})"

    async def open(self) -> list[Any]:
        """Start the session and list the server's tools (the SDK's `Tool`s). Raises
        MCPServerError when the server fails or does not answer within its connect timeout."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[list[Any]] = loop.create_future()
        self._closing = asyncio.Event()
        self._broken = asyncio.Event()
        self._owner = loop.create_task(self._own(ready))
        timeout = self.spec.connect_timeout_seconds
        try:
            return await asyncio.wait_for(asyncio.shield(ready), timeout)
        except asyncio.TimeoutError:
            await self.close()
            raise MCPServerError(
                f"{self.label} did not start and list its tools within {timeout:g} s"
            ) from None
        except BaseException:
            await self.close()
            raise

    async def _own(self, ready: asyncio.Future[list[Any]]) -> None:
        assert self._closing is not None
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._streams())
                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                tools = await _all_tools(session)
                self._session = session
                ready.set_result(tools)
                await self._closing.wait()
        except Exception as error:  # an ExceptionGroup of the transport's tasks too
            why = self.transport.fault or _describe(error, self._redact)
            if not ready.done():
                kind = MCPServerDownError if _refused(error) else MCPServerError
                ready.set_exception(kind(self._start_failure(why)))
            elif not self._closing.is_set():
                self.gone = self.gone or why
        finally:
            self._session = None
            if not self._closing.is_set():
                self.gone = self.gone or self.transport.fault or "the session ended"
            if not ready.done():
                ready.cancel()

    def _start_failure(self, why: str) -> str:
        text = f"{self.label} failed to start: {why}"
        kept = self.transport.stderr
        stderr = redact(kept.text(), self.spec.secrets(), cut=kept.cut).strip()
        if stderr:  # the end says most (a traceback's last line)
            cut = "..." if len(stderr) > 500 else ""
            text += f"; its stderr: {cut}{printable(stderr[-500:], 500)}"
        return text

    def _redact(self, text: str) -> str:
        """`text` with the server's URL (whose query may hold a token) in its public form, and
        the secrets of its settings redacted."""
        if isinstance(self.spec, HttpServer):
            text = text.replace(self.spec.url, public_url(self.spec.url))
        return redact(text, self.spec.secrets())

    def _streams(self) -> contextlib.AbstractAsyncContextManager[tuple[Any, Any]]:
        if isinstance(self.spec, StdioServer):
            return stdio_streams(self.spec, self.transport)
        from .http import http_streams

        return http_streams(self.spec, self._broke)

    def _broke(self, error: BaseException) -> None:
        """The HTTP connection failed mid-request: the server is gone for this session."""
        what = "the connection broke" if self._session is not None else "cannot connect"
        self.transport.fault = self.transport.fault or (f"{what}: {_describe(error, self._redact)}")
        if self._broken is not None:
            self._broken.set()

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """(text, is_error) of calling `tool` with `arguments`; never raises, never hangs."""
        session = self._session
        if session is None:
            return self._gone_text(), True
        timeout = self.spec.call_timeout_seconds
        late = f"the tool {tool!r} did not answer within {timeout:g} s"
        try:
            result = await self._unless_broken(
                session.call_tool(tool, arguments, read_timeout_seconds=timedelta(seconds=timeout)),
                timeout + 1,
            )
        except asyncio.TimeoutError:
            return late, True
        except McpError as error:
            if error.error.code == CONNECTION_CLOSED:
                self.gone = self.gone or self.transport.fault or "the connection closed"
                return self._gone_text(), True
            if error.error.code == 408:  # the SDK's own read timeout
                return late, True
            return f"{self.name}: {printable(self._redact(error.error.message), 500)}", True
        except Exception as error:
            self.gone = self.gone or self.transport.fault or _describe(error, self._redact)
            return self._gone_text(), True
        if result.isError:
            return result_text(result, self.spec.max_result_chars, self._redact), True
        return result_text(result, self.spec.max_result_chars), False

    async def _unless_broken(self, call: Any, timeout: float) -> Any:
        """Await `call`, unless the connection breaks first (then McpError CONNECTION_CLOSED)
        or `timeout` passes (asyncio.TimeoutError)."""
        assert self._broken is not None
        task = asyncio.ensure_future(call)
        broken = asyncio.ensure_future(self._broken.wait())
        try:
            done, _ = await asyncio.wait(
                {task, broken}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            broken.cancel()
            if not task.done():
                task.cancel()
        if task in done:
            return task.result()
        if broken in done:
            raise McpError(ErrorData(code=CONNECTION_CLOSED, message="the connection broke"))
        raise asyncio.TimeoutError

    def _gone_text(self) -> str:
        why = self.gone or self.transport.fault or "the session ended"
        return f"the MCP server {self.name!r} is gone ({why}); its tools cannot be called now"

    async def close(self) -> None:
        """End the session (a stdio server's process group is gone when it returns). Safe to
        call more than once. A session still starting is cancelled; an open one is left
        orderly (an HTTP session is deleted on its server) for up to `CLOSE_WAIT` seconds,
        then cancelled (a stdio server is killed either way)."""
        if self._closing is not None:
            self._closing.set()
        owner = self._owner
        if owner is None or owner.done():
            return
        if self._session is None:
            owner.cancel()
        # asyncio.wait, not the task itself: a cancelled owner must not cancel the closer
        done, _ = await asyncio.wait({owner}, timeout=CLOSE_WAIT)
        if not done:
            owner.cancel()
            await asyncio.wait({owner}, timeout=CLOSE_WAIT)


async def _all_tools(session: ClientSession) -> list[Any]:
    tools: list[Any] = []
    cursor = None
    while len(tools) < MAX_TOOLS_LISTED:
        page = await session.list_tools(cursor) if cursor else await session.list_tools()
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            break
    return tools[:MAX_TOOLS_LISTED]


def _refused(error: BaseException) -> bool:
    """Whether `error` (or an exception group's leaf) is a refused or failed HTTP connect."""
    pending = [error]
    while pending:
        item = pending.pop()
        if type(item).__name__ == "ConnectError":  # httpx's, without importing httpx here
            return True
        pending.extend(getattr(item, "exceptions", ()))
        if item.__cause__ is not None:
            pending.append(item.__cause__)
    return False


def _describe(error: BaseException, clean: Callable[[str], str]) -> str:
    """A short account of `error` (the first leaf of an exception group), with no traceback;
    its text `clean`ed (redacted) before it is cut."""
    while getattr(error, "exceptions", None):  # an exception group: its first leaf
        error = error.exceptions[0]  # type: ignore[attr-defined]
    text = clean(str(error))
    return f"{type(error).__name__}: {printable(text, 300)}" if text else type(error).__name__
