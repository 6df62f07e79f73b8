"""One event loop per process, in a daemon thread: where what outlives one caller's loop lives.

ms-swift drives a scheduler's hooks on more than one event loop (in colocate mode
`on_trajectory_start` and the turns run on different loops), and a socket opened on one loop is
dead on another. So every `openenv` env's socket (`remote`), every agent program (`agent`) and
every MCP session (`mcp`) lives here, not on the caller's loop: each coroutine runs here, and
the caller awaits it through a future on its own loop, never blocking it. A forked child starts
its own loop on first use (a parent's thread does not survive fork).
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

            threading.Thread(target=run, name="swift-gym-background", daemon=True).start()
            ready.wait()
            _loop, _pid = new, os.getpid()
        return _loop


async def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Await `coroutine` on the background loop from any other loop.

    Each step pays this hop twice (there and back), so it is kept to one future on the
    caller's loop, settled from the background loop: no `concurrent.futures` future between.
    """
    caller = asyncio.get_running_loop()
    answer: asyncio.Future[T] = caller.create_future()
    home = loop()
    tasks: list[asyncio.Task[T]] = []

    def settle(task: asyncio.Task[T]) -> None:  # on the caller's loop
        if answer.done():
            return
        if task.cancelled():
            answer.cancel()
        elif task.exception() is not None:
            answer.set_exception(task.exception())  # type: ignore[arg-type]
        else:
            answer.set_result(task.result())

    def finish(task: asyncio.Task[T]) -> None:  # on the background loop
        try:
            caller.call_soon_threadsafe(settle, task)
        except RuntimeError:  # the caller's loop has closed: nobody waits any more
            if not task.cancelled():
                task.exception()

    def begin() -> None:  # on the background loop
        task = home.create_task(coroutine)
        tasks.append(task)
        task.add_done_callback(finish)

    home.call_soon_threadsafe(begin)
    try:
        return await answer
    except asyncio.CancelledError:
        home.call_soon_threadsafe(lambda: [task.cancel() for task in tasks])
        raise


def run_sync(coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run `coroutine` on the background loop and wait for it (from a thread with no loop)."""
    return asyncio.run_coroutine_threadsafe(coroutine, loop()).result(timeout)
