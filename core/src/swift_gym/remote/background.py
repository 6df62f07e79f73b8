"""One event loop per process, in a daemon thread, that owns every remote env's socket.

ms-swift drives a scheduler's hooks on more than one event loop (in colocate mode
`on_trajectory_start` and the turns run on different loops), and a socket opened on one loop is
dead on another. So no socket belongs to the caller's loop: each coroutine runs here, and the
caller awaits it through a future on its own loop, never blocking it. A forked child starts its
own loop on first use (a parent's thread does not survive fork).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_pid: int | None = None


def loop() -> asyncio.AbstractEventLoop:
    """The process's background loop, started on first use."""
    global _loop, _pid
    with _lock:
        if _loop is None or _pid != os.getpid() or not _loop.is_running():
            ready = threading.Event()
            new = asyncio.new_event_loop()

            def run() -> None:
                asyncio.set_event_loop(new)
                new.call_soon(ready.set)
                new.run_forever()

            threading.Thread(target=run, name="swift-gym-remote", daemon=True).start()
            ready.wait()
            _loop, _pid = new, os.getpid()
        return _loop


async def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Await `coroutine` on the background loop from any other loop."""
    future = asyncio.run_coroutine_threadsafe(coroutine, loop())
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        future.cancel()
        raise


def run_sync(coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run `coroutine` on the background loop and wait for it (from a thread with no loop)."""
    return asyncio.run_coroutine_threadsafe(coroutine, loop()).result(timeout)
