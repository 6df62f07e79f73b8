"""A program's call made on another event loop (a thread's own), answered on the episode's.

An episode's pending call and the policy's reply to it live on one loop, the background loop
every program runs on, and a future of one loop cannot be completed from another thread. So
a call the SDK makes on a thread's own loop (`asyncio.run` in a worker thread) runs on the
episode's loop, and its answer comes back thread-safely. If the program holds its own loop
while that thread waits (it joined the thread without awaiting, as a sync wrapper such as
asgiref's `async_to_sync` does inside a running loop), the call could never run: it fails
fast, saying so, instead of hanging the thread and the episode.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from .transport import ClientError

T = TypeVar("T")
CHECK_SECONDS = 0.5
"""How often a bridged call that has not started yet looks at what holds the episode's loop."""
HELD_CHECKS = 2
"""Checks in a row that find the program itself holding its loop before the call fails."""
BLOCKED = (
    "this call came from another thread's event loop while the agent program blocks its own "
    "loop waiting for that thread (a join or a sync wrapper, not an await), so it could never "
    "be answered: await the thread instead (asyncio.to_thread, loop.run_in_executor)"
)


async def on_loop(
    loop: asyncio.AbstractEventLoop,
    call: Callable[[], Coroutine[Any, Any, T]],
    program: Callable[[], asyncio.Task[Any] | None],
) -> T:
    """`call()` run on `loop` and awaited here, on the caller's loop; ClientError when
    `loop` has closed, or when `program()` (the program's task) holds `loop` meanwhile."""
    started = threading.Event()

    async def run() -> T:
        started.set()
        return await call()

    coroutine = run()
    try:
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
    except RuntimeError:  # the loop has closed: the process is ending
        coroutine.close()
        raise ClientError(400, "this episode's event loop has closed") from None
    waiting = asyncio.wrap_future(future)
    held = 0
    try:
        while not started.is_set():
            done, _ = await asyncio.wait([waiting], timeout=CHECK_SECONDS)
            if done:
                break
            task = program()
            held = held + 1 if task is not None and asyncio.current_task(loop) is task else 0
            if held >= HELD_CHECKS and not started.is_set():
                future.cancel()
                raise ClientError(400, BLOCKED)
        return await waiting
    except asyncio.CancelledError:
        waiting.cancel()  # the call on the episode's loop is cancelled with it
        raise
