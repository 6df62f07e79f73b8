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
import concurrent.futures
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
        whatever `function` raised.

        The worker stays `busy` until the task there has really ended: a cancelled call whose
        env blocks the thread is still running, whatever the caller was told.
        """

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

        outcome: concurrent.futures.Future[Any] = concurrent.futures.Future()
        tasks: list[asyncio.Task[Any]] = []

        def begin() -> None:
            task = self._loop.create_task(job())
            tasks.append(task)
            task.add_done_callback(finish)

        def finish(task: asyncio.Task[Any]) -> None:
            self._done()
            if task.cancelled():
                outcome.cancel()
            elif not outcome.done():
                error = task.exception()
                if error is not None:
                    outcome.set_exception(error)
                else:
                    outcome.set_result(task.result())
            else:
                task.exception()  # the caller has gone: mark it seen, no "never retrieved"

        with self._lock:
            self._pending += 1
        try:
            self._loop.call_soon_threadsafe(begin)
        except RuntimeError:  # the worker was stopped
            self._done()
            raise
        waiting = asyncio.wrap_future(outcome)
        try:
            done, _ = await asyncio.wait({waiting}, timeout=timeout)
        except BaseException:  # the caller was cancelled (shutdown): stop the call too
            self._cancel(tasks, waiting)
            raise
        if not done:
            self._cancel(tasks, waiting)
            raise CallTimeout(f"did not return within {timeout:g} s")
        return waiting.result()

    def _cancel(self, tasks: list[asyncio.Task[Any]], waiting: asyncio.Future[Any]) -> None:
        """Cancel the task on the worker (it lands when the env next yields), and the wait."""
        waiting.cancel()

        def cancel() -> None:
            for task in tasks:
                task.cancel()

        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(cancel)

    def _done(self) -> None:
        with self._lock:
            self._pending -= 1

    def stop(self) -> None:
        """End the thread once its loop is free (at once if nothing runs there)."""
        with contextlib.suppress(RuntimeError):  # already stopped and closed
            self._loop.call_soon_threadsafe(self._loop.stop)
