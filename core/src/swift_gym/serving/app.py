"""The ASGI app: `GET /health`, `GET /schema`, `GET /metadata` and the `/ws` sessions.

Built on Starlette (what FastAPI is made of; the protocol needs no more). One connection is one
`Session`: its frames are handled in order, each answered with exactly one frame (a `close`
frame is answered by closing). Whatever a frame holds, the answer is an error frame at worst
and the connection goes on; only a frame over the hard size limit (the WebSocket layer's) or
text that is not UTF-8 closes it, as the WebSocket protocol requires.

Around the sessions: the bearer token (every route but `/health`), the capacity (a connection
past it is accepted, told `CAPACITY_REACHED` and closed, as openenv's server does, so the
client sees the code), and a reaper that closes sessions idle for longer than `idle_timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..placement.runners import Isolation
from .catalogue import EnvCatalogue
from .protocol import CAPACITY_REACHED, SESSION_ERROR, ProtocolError, error_frame, parse_frame
from .schemas import metadata, schemas
from .sessions import Session, SessionTable

if TYPE_CHECKING:
    from ..registry import Registry
    from .options import ServeOptions

logger = logging.getLogger("swift_gym.serving")

CLOSE_TRY_LATER = 1013
CLOSE_POLICY = 1008
FULL_GRACE_SECONDS = 5.0
"""How long a refused connection waits for its first frame, to answer it CAPACITY_REACHED."""
MAX_FRAMES_AHEAD = 16
"""Frames a client may send before their answers, read off the socket meanwhile: uvicorn stops
reading a connection while a frame waits for the app, and would miss the pongs of a client that
sent one during a long step (its keepalive would then close the connection)."""
CLOSE = "close"
"""What `_answer` gives for a close frame: the connection is closed, nothing sent."""
UNAUTHORIZED = (
    "this server needs a bearer token: send the header 'Authorization: Bearer <token>' "
    "(the token is in the variable named by the server's --token-env)"
)


class Server:
    """The app's state: options, the env catalogue, the session table and the reaper."""

    def __init__(
        self,
        options: ServeOptions,
        registry: Registry,
        on_ready: Callable[[], None] | None = None,
    ):
        self.options = options
        self.catalogue = EnvCatalogue(registry, options.env, options.defaults, options.allow)
        self.catalogue.check_defaults()
        self.table = SessionTable(options.max_sessions)
        self.placement = Isolation(options.isolation, self.catalogue.never_blocks)
        self.schemas = schemas(self.catalogue)
        self.metadata = metadata(self.catalogue)
        self.on_ready = on_ready
        self.withheld = self.catalogue.withheld_builtins() if self.catalogue.allowed is None else []
        """The core's envs a reset may not name for want of `--allow`, said when ready."""
        self._sockets: dict[str, WebSocket] = {}

    def authorized(self, headers: Any) -> bool:
        token = self.options.token
        if token is None:
            return True
        scheme, _, given = headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), token.encode()
        )

    # HTTP

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "healthy"})

    async def schema(self, request: Request) -> Response:
        if not self.authorized(request.headers):
            return _unauthorized()
        return JSONResponse(self.schemas)

    async def describe(self, request: Request) -> Response:
        if not self.authorized(request.headers):
            return _unauthorized()
        return JSONResponse(
            {
                **self.metadata,
                "isolation": self.placement.isolation,
                "oracle": self.options.oracle,
                "sessions": len(self.table.sessions),
                "stuck_envs": self.table.stuck(),
                "max_sessions": self.table.capacity,
            }
        )

    # WebSocket

    async def websocket(self, websocket: WebSocket) -> None:
        if not self.authorized(websocket.headers):
            await _deny(websocket)
            return
        await websocket.accept()
        session = Session(
            self.catalogue,
            self.table,
            self.options.step_timeout,
            self.placement,
            oracle=self.options.oracle,
        )
        if not self.table.add(session):
            await self._refuse_full(websocket)
            return
        self._sockets[session.id] = websocket
        peer = websocket.client
        logger.info(
            "swift-gym serve: session %s opened from %s (%d of %d in use)",
            session.id[:8],
            f"{peer.host}:{peer.port}" if peer else "?",
            self.table.in_use,
            self.table.capacity,
        )
        try:
            await self._serve_session(websocket, session)
        finally:
            self._sockets.pop(session.id, None)
            await session.close()
            await _close_quietly(websocket)
            logger.info(
                "swift-gym serve: session %s closed after %d episodes, %d steps",
                session.id[:8],
                session.episodes,
                session.total_steps,
            )

    async def _refuse_full(self, websocket: WebSocket) -> None:
        """Say CAPACITY_REACHED at once, wait (briefly) for the client's first frame so the
        error is its answer, then close: a client that sends before it reads (openenv-core
        0.3.0) would otherwise find the connection closed and never see the code."""
        in_use = self.table.in_use
        frame = error_frame(
            f"the server is full ({in_use} of {self.table.capacity} sessions in use; "
            "swift-gym serve --max-sessions): try again later",
            CAPACITY_REACHED,
            active_sessions=in_use,
            max_sessions=self.table.capacity,
        )
        if await _send_quietly(websocket, frame):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.receive(), FULL_GRACE_SECONDS)
        await _close_quietly(websocket, CLOSE_TRY_LATER, "CAPACITY_REACHED: the server is full")

    async def _serve_session(self, websocket: WebSocket, session: Session) -> None:
        limit = self.options.max_message_bytes
        inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(MAX_FRAMES_AHEAD)
        reader = asyncio.create_task(_read_frames(websocket, inbox))
        try:
            while True:
                message = await inbox.get()
                if message is None:  # gone, or closed by the reaper
                    return
                answer = await self._answer(session, message, limit)
                if answer is CLOSE or session.id not in self._sockets:  # or reaped meanwhile
                    return
                if not await _send_quietly(websocket, answer):
                    return
                session.answered()
        finally:
            reader.cancel()

    async def _answer(self, session: Session, message: dict[str, Any], limit: int) -> str:
        """The answer to one client frame (`CLOSE` for a close frame); never raises."""
        raw = message.get("text")
        if raw is None:
            raw = message.get("bytes") or b""
        try:
            kind, data = parse_frame(raw, limit)
            if kind == "close":
                return CLOSE
            return await session.handle(kind, data)
        except ProtocolError as error:
            return error.frame()
        except Exception:  # a bug of ours: logged, told, and the server goes on
            logger.exception("swift-gym serve: internal error in session %s", session.id)
            return error_frame("internal server error (logged by the server)", SESSION_ERROR)

    async def reap(self) -> None:
        """Close sessions idle for longer than idle_timeout, every few seconds."""
        timeout = self.options.idle_timeout
        interval = min(max(timeout / 4, 0.05), 5.0)
        while True:
            await asyncio.sleep(interval)
            for session in self.table.idle(timeout):
                websocket = self._sockets.pop(session.id, None)
                message = (
                    f"session closed after {timeout:g} s without a frame (swift-gym serve "
                    "--idle-timeout): connect again and reset"
                )
                if websocket is not None:
                    await _send_quietly(websocket, error_frame(message, SESSION_ERROR))
                    await _close_quietly(websocket, 1000, "SESSION_ERROR: closed when idle")
                await session.close()

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        reaper = asyncio.create_task(self.reap())
        if self.withheld:
            names = ", ".join(self.withheld)
            logger.info(
                "swift-gym serve: not served: %s, and any env that reaches the network or uses "
                "the operator's services (Env.deployment); serve one with --allow NAME",
                names,
            )
        if self.on_ready is not None:
            self.on_ready()
        try:
            yield
        finally:
            reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reaper
            for session in list(self.table.sessions.values()):
                await session.close()
            self.placement.stop()


def create_app(
    options: ServeOptions,
    registry: Registry | None = None,
    on_ready: Callable[[], None] | None = None,
) -> Starlette:
    """The ASGI app serving `options`. Raises UnknownEnvError or InvalidConfigError at once for
    a default env, `--set` or allow list that cannot be served."""
    if registry is None:
        from ..registry import default_registry

        registry = default_registry()
    server = Server(options, registry, on_ready)
    routes = [
        Route("/health", server.health),
        Route("/schema", server.schema),
        Route("/metadata", server.describe),
        WebSocketRoute("/ws", server.websocket),
    ]
    app = Starlette(routes=routes, lifespan=server.lifespan)
    app.state.server = server
    return app


def _unauthorized() -> Response:
    return JSONResponse(
        {"error": UNAUTHORIZED}, status_code=401, headers={"WWW-Authenticate": "Bearer"}
    )


async def _deny(websocket: WebSocket) -> None:
    """Refuse the handshake: HTTP 401 where the server can send one, else a policy close."""
    try:
        await websocket.send_denial_response(
            PlainTextResponse(UNAUTHORIZED, 401, headers={"WWW-Authenticate": "Bearer"})
        )
    except RuntimeError:
        await _close_quietly(websocket, CLOSE_POLICY)


async def _read_frames(websocket: WebSocket, inbox: asyncio.Queue[dict[str, Any] | None]) -> None:
    """Move the client's frames into `inbox` (waiting while it is full), then None once the
    connection has ended; frames not yet handled are dropped then, as nobody would read their
    answers."""
    while True:
        try:
            message = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):  # gone, or closed by the reaper
            break
        if message["type"] == "websocket.disconnect":
            break
        await inbox.put(message)
    while not inbox.empty():
        inbox.get_nowait()
    await inbox.put(None)


async def _send_quietly(websocket: WebSocket, text: str) -> bool:
    """Send `text`; False if the client has gone (mid-step, say): nothing to tell it then."""
    try:
        await websocket.send_text(text)
    except Exception:  # disconnected, closed: the session ends, the server goes on
        return False
    return True


async def _close_quietly(websocket: WebSocket, code: int = 1000, reason: str = "") -> None:
    """Close; the reason (at most 123 bytes) is what a client sees if it reads no frame."""
    with contextlib.suppress(Exception):
        await websocket.close(code, reason)
