"""The stdio transport: a server process per session, whose lifetime this module owns.

The SDK's own `stdio_client` does not expose the process, reads lines of any length and sends
the server's stderr to ours. Here the server is started by `server_process` (in a PID namespace
of its own where bubblewrap can make one, so everything it starts ends with it; else in a
process group of its own), with a minimal environment plus the operator's `env`, reading at
most `max_message_bytes` a line, its stderr drained and kept bounded (for the error when it
fails to start). Closing it closes stdin, gives it `GRACE` seconds to exit, then kills it and
all it started; an `atexit` hook kills those still open.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

import anyio
from mcp import types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from ..sandbox.output import BoundedOutput
from .server_process import ServerProcess, start
from .servers import StdioServer

GRACE = 1.0
"""Seconds a server gets to exit after its stdin closes, before SIGKILL."""
_KEPT_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
_LIVE: dict[ServerProcess, int] = {}
"""Servers not yet ended, each with the pid of the process that started it (a forked child
inherits this table, and must not kill its parent's servers at its exit)."""


class Transport:
    """What a session's stdio transport knows: its process and why it ended, if it did."""

    def __init__(self) -> None:
        self.process: ServerProcess | None = None
        self.fault: str | None = None
        self.stderr = BoundedOutput(4096)

    @property
    def pid(self) -> int | None:
        """The server's pid on this machine, once started."""
        return self.process.pid if self.process is not None else None


@contextlib.asynccontextmanager
async def stdio_streams(spec: StdioServer, transport: Transport) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) of a started server, as `ClientSession` takes them; the
    server and all it started are gone when the context exits, however it exits."""
    env = {key: os.environ[key] for key in _KEPT_ENV if key in os.environ}
    env.update({key: value.get_secret_value() for key, value in spec.env.items()})
    process = await start(spec, env, spec.max_message_bytes)
    child = process.child
    transport.process = process
    _LIVE[process] = os.getpid()
    to_session, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def server_to_session() -> None:
        async with to_session:
            while True:
                try:
                    line = await child.stdout.readline()
                except ValueError:  # a line past the limit: the stream cannot be read on
                    transport.fault = (
                        f"the server sent a message over {spec.max_message_bytes:,} bytes"
                    )
                    process.kill_now()
                    return
                if not line:
                    code = await child.wait()
                    transport.fault = transport.fault or f"the server exited (status {code})"
                    return
                try:
                    message = types.JSONRPCMessage.model_validate_json(line)
                except ValidationError:  # a stray print: not a message, skipped
                    continue
                await to_session.send(SessionMessage(message))

    async def session_to_server() -> None:
        async with from_session:
            async for item in from_session:
                data = item.message.model_dump_json(by_alias=True, exclude_none=True)
                try:
                    child.stdin.write(data.encode("utf-8") + b"\n")
                    await child.stdin.drain()
                except (BrokenPipeError, ConnectionResetError, RuntimeError):
                    transport.fault = transport.fault or "the server closed its input"
                    return

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server_to_session)
            tasks.start_soon(session_to_server)
            tasks.start_soon(transport.stderr.drain, child.stderr)
            try:
                yield read_stream, write_stream
            finally:
                tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await end(process)
            with contextlib.suppress(asyncio.TimeoutError, OSError):  # what it wrote last
                await asyncio.wait_for(transport.stderr.drain(child.stderr), 0.5)


async def end(process: ServerProcess) -> None:
    """Close the server's stdin, wait `GRACE` seconds, then kill it and all it started."""
    await process.end(GRACE)
    _LIVE.pop(process, None)


def live_pids() -> list[int]:
    """The pids of stdio servers not yet ended (for tests)."""
    return [process.child.pid for process in _LIVE]


@atexit.register
def _kill_all() -> None:
    for process, owner in list(_LIVE.items()):
        if owner == os.getpid():
            process.kill_now()
