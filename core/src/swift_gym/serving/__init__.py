"""Serving any installed env over OpenEnv's WebSocket protocol (`swift-gym serve`).

Needs the `serve` extra (`pip install "./core[serve]"` in a clone: Starlette, uvicorn, websockets);
nothing here is imported by `import swift_gym`. Where each session's env runs (`--isolation`:
by default its own thread, so one env's slow step blocks no other, or the server's loop for an
env that declares it never blocks) is `placement.runners`'s. The rooms, bottom up: `protocol`
(the frames, pure), `catalogue` (which env and config a reset asks for, checked as a dataset
row), `sessions` (one connection's episodes, played through `episode.Episode`; the capacity),
`schemas`, `app` (the routes), `connections` (the handshake deadline and the connection cap
under the descriptor limit) and `server` (uvicorn on a bound socket). `cli/serve.py` only parses
options and calls `serve`.
"""

from __future__ import annotations

from ..lazy import attach

_EXPORTS = {"ServeOptions": "options", "create_app": "app", "serve": "server"}
__all__ = ["ServeOptions", "create_app", "serve"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .app import create_app
    from .options import ServeOptions
    from .server import serve

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
