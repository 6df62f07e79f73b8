"""One episode's WebSocket connection to an OpenEnv server. Runs on the background loop only.

Every wait is bounded (connecting, each answer), frames are bounded in size, and a server that
goes away mid-episode ends that episode with a `RemoteEnvError` saying so: nothing else is
affected, and no retry plays a step on a session the server never reset. An answer that does not
come in time hangs up at once (no close handshake), so the error comes when the timeout says.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..install_hints import extra_hint
from .protocol import (
    Observation,
    RemoteEnvError,
    ServerDownError,
    close_frame,
    oracle_frame,
    parse_frame,
    parse_oracle,
)

MAX_FRAME_BYTES = 16 * 2**20
"""The largest frame read from a server (a bigger one closes the connection)."""


def _websockets() -> Any:
    try:
        from websockets.asyncio.client import connect
    except ImportError:
        raise RemoteEnvError(
            f"the openenv env needs the websockets package: {extra_hint('remote')}"
        ) from None
    return connect


async def _within(awaitable: Any, seconds: float) -> Any:
    """`await awaitable` in the caller's own task, `asyncio.TimeoutError` after `seconds`.

    `asyncio.wait_for` before Python 3.12 wraps the awaitable in a task of its own: a loop
    iteration more on every answer read.
    """
    task = asyncio.current_task()
    if task is None:
        return await asyncio.wait_for(awaitable, seconds)
    fired = False

    def expire() -> None:
        nonlocal fired
        fired = True
        task.cancel()

    timer = asyncio.get_running_loop().call_later(seconds, expire)
    try:
        return await awaitable
    except asyncio.CancelledError:
        if not fired:
            raise
        uncancel = getattr(task, "uncancel", None)  # Python 3.11+
        if uncancel is not None:
            uncancel()
        raise asyncio.TimeoutError() from None
    finally:
        timer.cancel()


class Session:
    """A connection to `url` (a ws:// URL), opened by `open`, one request at a time."""

    def __init__(
        self, url: str, headers: dict[str, str], connect_timeout: float, answer_timeout: float
    ):
        self.url = url
        self._headers = headers
        self._connect_timeout = connect_timeout
        self._answer_timeout = answer_timeout
        self._socket: Any = None

    async def open(self) -> None:
        connect = _websockets()
        try:
            self._socket = await connect(
                self.url,
                additional_headers=self._headers or None,
                open_timeout=self._connect_timeout,
                max_size=MAX_FRAME_BYTES,
                close_timeout=2,
                proxy=None,
            )
        except asyncio.TimeoutError:
            raise ServerDownError(
                f"{self.url}: no connection within {self._connect_timeout:g}s"
            ) from None
        except OSError as error:
            raise ServerDownError(
                f"{self.url}: cannot connect: {error.strerror or error}"
            ) from None
        except Exception as error:  # a handshake refused: 401, 403, 404, not a WebSocket...
            raise RemoteEnvError(f"{self.url}: {type(error).__name__}: {error}") from None

    async def request(self, frame: str, close_when_done: bool = False) -> Observation:
        """Send `frame` and read the answer; with `close_when_done`, an answer that ends the
        episode closes the session too, in the same hop to this loop (a hop less for the
        episode's last step)."""
        observation = parse_frame(self.url, await self._exchange(frame))
        if close_when_done and observation.done:
            await self.close()
        return observation

    async def oracle(self) -> str | dict[str, Any]:
        """The served env's oracle reply for the episode (swift-gym's extension; see
        `protocol.parse_oracle`)."""
        return parse_oracle(self.url, await self._exchange(oracle_frame()))

    async def _exchange(self, frame: str) -> str | bytes:
        """Send `frame`, the server's answer (bounded in time and size)."""
        if self._socket is None:
            raise RemoteEnvError(f"{self.url}: the connection is closed")
        try:
            await self._socket.send(frame)
            return await _within(self._socket.recv(), self._answer_timeout)  # type: ignore[no-any-return]
        except asyncio.TimeoutError:
            self._hang_up()
            raise RemoteEnvError(
                f"{self.url}: no answer within {self._answer_timeout:g}s"
            ) from None
        except Exception as error:  # the server went away, or sent a frame too big
            self._hang_up()
            raise RemoteEnvError(f"{self.url}: connection lost: {error}") from None

    def _hang_up(self) -> None:
        """Drop the connection now, with no goodbye: a server that did not answer in time may
        not answer a close handshake either, and waiting for it would make the error late."""
        socket, self._socket = self._socket, None
        if socket is not None:
            socket.transport.abort()

    async def close(self) -> None:
        """Say goodbye (best effort) and close; safe to call more than once."""
        socket, self._socket = self._socket, None
        if socket is None:
            return
        with contextlib.suppress(Exception):
            await _within(socket.send(close_frame()), 1)
        with contextlib.suppress(Exception):
            await socket.close()
