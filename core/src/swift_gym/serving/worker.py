"""Where a session's env runs: a thread with an event loop of its own.

swift-gym envs are coroutines, but nothing stops one from computing for seconds, or calling
`time.sleep`, inside `step`; on the server's loop that would stall every other session and the
sockets too. So each session's env is built and called on its own loop in its own thread: a
slow or hung env holds only its own session. The env stays on that one loop for its life, so
whatever it makes in `reset` (an HTTP client, a subprocess) is still usable at each step.

A call that overruns its timeout is cancelled (which lands when the env next yields); until it
has really returned the worker counts as `busy`, so the server can keep a hung env's slot taken
instead of starting threads without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
from collections.abc import Callable
from typing import Any

from ..plugins import describe_error


class CallTimeout(Exception):
    """A call on the worker did not return in time."""


class CallAborted(Exception):
    """The function raised SystemExit, KeyboardInterrupt or another BaseException: on the
    worker that is the env's failure, never a reason for the server to stop."""


class EnvWorker:
    """A daemon thread running an event loop; `call` runs a function there and awaits it."""

    def __init__(self, name: str):
        self._loop = asyncio.new_event_loop()
        self._pending = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """Whether a call is still running there (also one that timed out and has not ended)."""
        return self._pending > 0

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            tasks = asyncio.all_tasks(self._loop)
            for task in tasks:
                task.cancel()
            if tasks:
                self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self._loop.close()

    async def call(self, function: Callable[[], Any], timeout: float) -> Any:
        """`function()` run on the worker's loop (awaited there if it returns an awaitable),
        awaited from the caller's loop; raises `CallTimeout` after `timeout` seconds, and
        whatever `function` raised."""

        async def job() -> Any:
            try:
                result = function()
                if inspect.isawaitable(result):
                    result = await result
                return result
            except (Exception, asyncio.CancelledError):
                raise
            except BaseException as error:  # an env's sys.exit() must not reach the server
                raise CallAborted(describe_error(error)) from None

        with self._lock:
            self._pending += 1
        coroutine = job()
        try:
            future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        except RuntimeError:  # the worker was stopped
            coroutine.close()
            self._done(None)
            raise
        future.add_done_callback(self._done)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except asyncio.TimeoutError:
            raise CallTimeout(f"did not return within {timeout:g} s") from None

    def _done(self, _future: Any) -> None:
        with self._lock:
            self._pending -= 1

    def stop(self) -> None:
        """End the thread once its loop is free (at once if nothing runs there)."""
        with contextlib.suppress(RuntimeError):  # already stopped and closed
            self._loop.call_soon_threadsafe(self._loop.stop)
