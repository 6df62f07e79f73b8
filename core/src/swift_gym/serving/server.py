"""Running the app: a socket bound before the server starts, uvicorn on it, and one ready line.

The socket is bound here rather than by uvicorn so that `--port 0` works (the ready line says
the port the system chose) and a port in use is an `OSError` the command can report plainly.
uvicorn's HTTP protocol reports to a `ConnectionGuard` (`connections`): connections silent in
their handshake are closed, and they are capped below the descriptor limit.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from .app import create_app
from .connections import ConnectionGuard, connection_cap, raise_file_limit

if TYPE_CHECKING:
    from ..registry import Registry
    from .options import ServeOptions

logger = logging.getLogger("swift_gym.serving")

SHUTDOWN_SECONDS = 5
HARD_LIMIT_SLACK = 64 * 1024
"""The WebSocket layer closes a connection on a frame over 2 x max_message_bytes + this; frames
between the two limits are answered with an error frame, and the session goes on."""


PER_MESSAGE_DEFLATE = False
"""Frames are a few hundred bytes of JSON: compressing each costs the server (and the client,
which must inflate it) more CPU than the bytes saved are worth, on loopback and on a LAN."""


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); raises OSError (port in use, no such address)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def serve(
    options: ServeOptions,
    registry: Registry | None = None,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM. `on_ready(url)` is called once sessions can start."""
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    file_limit = raise_file_limit()
    cap = connection_cap(file_limit, options.max_sessions, options.isolation)
    if cap < options.max_sessions:
        logger.warning(
            "swift-gym serve: the file descriptor limit (%s) leaves room for %d connections, "
            "fewer than --max-sessions %d: raise `ulimit -n` or lower --max-sessions",
            file_limit,
            cap,
            options.max_sessions,
        )
    guard = ConnectionGuard(cap, options.handshake_timeout)
    sock = bind(options.host, options.port)
    host, port = sock.getsockname()[:2]
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}"

    def ready() -> None:  # on the server's loop, before it accepts
        guard.start(asyncio.get_running_loop())
        if on_ready is not None:
            on_ready(url)

    try:
        app = create_app(options, registry, on_ready=ready)
        config = uvicorn.Config(
            app,
            http=guard.protocol(AutoHTTPProtocol),
            ws=_websocket_implementation(),
            ws_max_size=2 * options.max_message_bytes + HARD_LIMIT_SLACK,
            ws_ping_interval=options.keepalive,
            ws_ping_timeout=options.keepalive,
            ws_per_message_deflate=PER_MESSAGE_DEFLATE,
            lifespan="on",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=SHUTDOWN_SECONDS,
        )
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


def _websocket_implementation() -> str:
    """uvicorn's sans-I/O websockets protocol where it has one (0.35+), else the older one."""
    from importlib.util import find_spec

    if find_spec("uvicorn.protocols.websockets.websockets_sansio_impl") is not None:
        return "websockets-sansio"
    return "websockets"
