"""Connections before they are sessions: a handshake deadline, a cap, and the descriptor limit.

uvicorn keeps a TCP connection that never sends a request for as long as the client likes, and
a server out of file descriptors cannot accept anyone (asyncio then logs a traceback for each
try, thousands a second). So: the soft descriptor limit is raised to the hard one at start; a
connection still on HTTP (no WebSocket yet) is closed once it has been silent `handshake_timeout`
seconds since it opened or since its last answer; and the connections are capped below the
descriptor limit, the cap made room for by closing the oldest connection still in its handshake
(a real client's handshake takes milliseconds, so silent sockets cannot lock it out). The
accept error is logged at most once per `ACCEPT_LOG_SECONDS`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

logger = logging.getLogger("swift_gym.serving")

FD_RESERVE = 32
"""Descriptors kept for what is not a connection: stdio, the listening socket, the event loop,
files the envs open."""
FDS_PER_WORKER = 3
"""A worker's event loop: its selector and its self-pipe (`--isolation thread` and `shared`)."""
EXTRA_CONNECTIONS = 1024
"""Connections beyond --max-sessions: handshakes, HTTP requests, clients told CAPACITY_REACHED."""
MIN_CONNECTIONS = 16
ACCEPT_LOG_SECONDS = 10.0
ACCEPT_ERROR = "socket.accept() out of system resource"


def raise_file_limit() -> int | None:
    """Raise the soft descriptor limit to the hard one; the soft limit now (None: no limits
    here, as on Windows, or unlimited)."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for target in (hard, 65536, 10240):  # macOS refuses an infinite or too high soft limit
        if soft == resource.RLIM_INFINITY or (hard != resource.RLIM_INFINITY and target > hard):
            continue
        if target > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            except (ValueError, OSError):
                continue
            soft = target
        break
    return None if soft == resource.RLIM_INFINITY else soft


def connection_cap(file_limit: int | None, max_sessions: int, isolation: str) -> int:
    """How many connections at once fit under `file_limit` beside the sessions' workers."""
    wanted = max_sessions + EXTRA_CONNECTIONS
    if file_limit is None:
        return wanted
    workers = 0 if isolation == "inline" else max_sessions  # auto: each env may need a thread
    room = file_limit - FD_RESERVE - FDS_PER_WORKER * workers
    return max(MIN_CONNECTIONS, min(wanted, room))


class ConnectionGuard:
    """Counts the server's connections, closes those silent in their handshake, caps them."""

    def __init__(self, cap: int, handshake_timeout: float):
        self.cap = cap
        self.handshake_timeout = handshake_timeout
        self._open: dict[Any, tuple[asyncio.Transport, float]] = {}
        """HTTP protocol -> (its transport, when it last made progress), oldest first."""
        self._sweeping = False
        self._accept_errors = 0
        self._accept_logged = -ACCEPT_LOG_SECONDS

    def protocol(self, base: type[asyncio.Protocol]) -> type[asyncio.Protocol]:
        """`base` (uvicorn's HTTP protocol) reporting to this guard; uvicorn's `http=`."""
        guard = self

        class Guarded(base):  # type: ignore[valid-type, misc]
            def connection_made(self, transport: asyncio.Transport) -> None:
                super().connection_made(transport)
                guard.opened(self, transport)

            def connection_lost(self, exc: Exception | None) -> None:
                guard.closed(self)
                super().connection_lost(exc)

            def on_response_complete(self) -> None:
                super().on_response_complete()
                guard.answered(self)

        Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
        return Guarded

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Rate-limit the accept error's log on `loop` (call it on the loop, before serving)."""
        default = loop.get_exception_handler()

        def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            if context.get("message") == ACCEPT_ERROR:
                self._accept_error(context.get("exception"))
            elif default is not None:
                default(loop, context)
            else:
                loop.default_exception_handler(context)

        loop.set_exception_handler(handle)

    def _accept_error(self, error: BaseException | None) -> None:
        self._accept_errors += 1
        now = time.monotonic()
        if now - self._accept_logged < ACCEPT_LOG_SECONDS:
            return
        logger.error(
            "swift-gym serve: cannot accept connections (%s; %d failed accepts since the last "
            "such line): too few file descriptors (raise `ulimit -n`, or lower --max-sessions)",
            error,
            self._accept_errors,
        )
        self._accept_errors = 0
        self._accept_logged = now

    @property
    def count(self) -> int:
        self._prune()
        return len(self._open)

    def opened(self, protocol: Any, transport: asyncio.Transport) -> None:
        if len(self._open) >= self.cap:
            self._prune()
            if len(self._open) >= self.cap and not self._evict_oldest_handshake():
                transport.abort()  # every slot holds a session: no room for another
                return
        self._open[protocol] = (transport, time.monotonic())
        if not self._sweeping:
            self._sweeping = True
            asyncio.get_running_loop().call_later(self._interval, self._sweep)

    def closed(self, protocol: Any) -> None:
        self._open.pop(protocol, None)

    def answered(self, protocol: Any) -> None:
        """An HTTP answer went out: the deadline starts again (keep-alive is uvicorn's)."""
        entry = self._open.pop(protocol, None)
        if entry is not None:
            self._open[protocol] = (entry[0], time.monotonic())

    @property
    def _interval(self) -> float:
        return min(max(self.handshake_timeout / 4, 0.05), 1.0)

    def _sweep(self) -> None:
        """Close connections silent in their handshake past the deadline; forget closed ones."""
        deadline = time.monotonic() - self.handshake_timeout
        for protocol, (transport, since) in list(self._open.items()):
            if transport.is_closing():
                del self._open[protocol]
            elif since < deadline and transport.get_protocol() is protocol:
                del self._open[protocol]
                transport.abort()
        if self._open:
            asyncio.get_running_loop().call_later(self._interval, self._sweep)
        else:
            self._sweeping = False

    def _prune(self) -> None:
        for protocol, (transport, _) in list(self._open.items()):
            if transport.is_closing():
                del self._open[protocol]

    def _evict_oldest_handshake(self) -> bool:
        for protocol, (transport, _) in self._open.items():
            if transport.get_protocol() is protocol:  # not a WebSocket yet
                del self._open[protocol]
                transport.abort()
                return True
        return False
