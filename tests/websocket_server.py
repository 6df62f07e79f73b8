"""A WebSocket server on 127.0.0.1 in a thread of the test process, for the fake OpenEnv servers
the `openenv` env's tests play against: each fake says how it answers (`handle`); this says
where it runs and how it stops."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from websockets.asyncio.server import serve


class ThreadedServer:
    """Call `start()` once the fake's own state is set: it serves on a free port (`url`) in a
    daemon thread with its own event loop until `stop()`."""

    port: int

    async def handle(self, connection: Any) -> None:
        """One client's connection, to its end."""
        raise NotImplementedError

    def start(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self._ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        self._stop = self.loop.create_future()
        async with serve(self.handle, "127.0.0.1", 0) as server:
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self._stop.set_result, None)
        self.thread.join(10)
