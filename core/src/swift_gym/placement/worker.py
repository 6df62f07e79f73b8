"""Where an env runs when it must not share its caller's loop: a thread with an event loop.

swift-gym envs are coroutines, but nothing stops one from computing for seconds, or calling
`time.sleep`, inside `step`; on a server's loop (`swift-gym serve`, a Ray actor) that would
stall every other episode and the sockets too. So an env is built and called on a loop in
another thread (one per episode, or one of a few shared ones: `runners`). The env stays on that
one loop for its life, so whatever it makes in `reset` (an HTTP client, a subprocess) is still
usable at each step.

A call that overruns its timeout is cancelled (which lands when the env next yields); until it
has really returned the worker counts as `busy` (and the call's `Lane`, which says whose call it
was, too), so a server can keep a hung env's slot taken instead of starting threads without
bound.

The hop is the dearest part of a short step, so it is kept small: no `concurrent.futures`
future and no `asyncio.wait`, one future on the caller's loop settled from the worker, one timer
there for the timeout; and answers to the same loop are posted through a `Mailbox`, which wakes
that loop once for however many answers arrived meanwhile.
"""

from __future__ import annotations

import asyncio
import collections
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
    worker that is the env's failure, never a reason for the server to stop. So is a
    `CancelledError` nobody asked for: passed on, it would end the client's connection."""


ENV_CANCELLED = "CancelledError, raised by the env itself (the call was not cancelled)"


class Mailbox:
    """Callbacks for one loop from other threads, the loop woken once per batch.

    `call_soon_threadsafe` writes to the loop's self-pipe on every call (a system call, and a
    chance for the GIL to change hands); with hundreds of sessions answering at once, most of
    those wake-ups find the loop already awake.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self._items: collections.deque[tuple[Callable[..., Any], tuple[Any, ...]]] = (
            collections.deque()
        )
        self._scheduled = False

    def post(self, function: Callable[..., Any], *args: Any) -> None:
        """Run `function(*args)` on the loop soon; raises RuntimeError if the loop is closed."""
        self._items.append((function, args))  # append, then look: a drain under way sees it
        if not self._scheduled:
            self._scheduled = True
            self.loop.call_soon_threadsafe(self._drain)

    def _drain(self) -> None:
        self._scheduled = False
        items = self._items
        while items:
            function, args = items.popleft()
            function(*args)


_mailboxes: dict[asyncio.AbstractEventLoop, Mailbox] = {}
_mailboxes_lock = threading.Lock()


def mailbox(loop: asyncio.AbstractEventLoop) -> Mailbox:
    """The mailbox of `loop` (made on first use; a closed loop's is dropped on the next)."""
    found = _mailboxes.get(loop)
    if found is None:
        with _mailboxes_lock:
            for old in [old for old in _mailboxes if old.is_closed()]:
                del _mailboxes[old]
            found = _mailboxes.setdefault(loop, Mailbox(loop))
    return found


class Lane:
    """Whose calls they are, on a worker that may be shared: `busy` while one of them runs
    (also one that timed out and has not ended)."""

    def __init__(self) -> None:
        self.pending = 0

    @property
    def busy(self) -> bool:
        return self.pending > 0


class EnvWorker:
    """A daemon thread running an event loop; `call` runs a function there and awaits it."""

    kind = "thread"

    def __init__(self, name: str):
        self._loop = asyncio.new_event_loop()
        self._inbox = Mailbox(self._loop)
        self._pending = 0
        self.overdue = 0
        """Calls that timed out and have not ended: the loop may be blocked."""
        self._stopping = False
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

    async def call(
        self, function: Callable[[], Any], timeout: float, lane: Lane | None = None
    ) -> Any:
        """`function()` run on the worker's loop (awaited there if it returns an awaitable),
        awaited from the caller's loop; raises `CallTimeout` after `timeout` seconds, and
        whatever `function` raised.

        The worker (and `lane`) stay `busy` until the task there has really ended: a cancelled
        call whose env blocks the thread is still running, whatever the caller was told.
        """
        caller = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = caller.create_future()
        back = mailbox(caller)
        tasks: list[asyncio.Task[Any]] = []
        state = {"ended": False, "overdue": False}  # both under self._lock

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

        def begin() -> None:  # on the worker
            task = self._loop.create_task(job())
            tasks.append(task)
            task.add_done_callback(finish)

        def finish(task: asyncio.Task[Any]) -> None:  # on the worker
            self._done(lane, state)
            if task.cancelled():  # if `call` cancelled it, `answer` is settled: this is dropped
                why = "the server is stopping" if self._stopping else ENV_CANCELLED
                outcome: tuple[str, Any] = ("error", CallAborted(why))
            else:
                error = task.exception()
                outcome = ("error", error) if error is not None else ("result", task.result())
            with contextlib.suppress(RuntimeError):  # the caller's loop has closed
                back.post(settle, *outcome)

        def settle(how: str, value: Any) -> None:  # on the caller
            if answer.done():
                return
            if how == "result":
                answer.set_result(value)
            else:
                answer.set_exception(value)

        def expire() -> None:  # on the caller
            with self._lock:
                if answer.done() or state["ended"]:  # ended: its answer is on the way
                    return
                state["overdue"] = True
                self.overdue += 1
            answer.set_exception(CallTimeout(f"did not return within {timeout:g} s"))
            self._cancel(tasks)

        with self._lock:
            self._pending += 1
            if lane is not None:
                lane.pending += 1
        try:
            self._inbox.post(begin)
        except RuntimeError:  # the worker was stopped
            self._done(lane, state)
            raise
        timer = caller.call_later(timeout, expire)
        try:
            return await answer
        except asyncio.CancelledError:  # the caller was cancelled (shutdown): stop the call too
            self._cancel(tasks)
            raise
        finally:
            timer.cancel()

    def _cancel(self, tasks: list[asyncio.Task[Any]]) -> None:
        """Cancel the task on the worker (it lands when the env next yields)."""

        def cancel() -> None:
            for task in tasks:
                task.cancel()

        with contextlib.suppress(RuntimeError):
            self._inbox.post(cancel)

    def _done(self, lane: Lane | None, state: dict[str, bool]) -> None:
        with self._lock:
            state["ended"] = True
            self._pending -= 1
            if lane is not None:
                lane.pending -= 1
            if state["overdue"]:
                self.overdue -= 1

    def stop(self) -> None:
        """End the thread once its loop is free (at once if nothing runs there)."""
        self._stopping = True
        with contextlib.suppress(RuntimeError):  # already stopped and closed
            self._loop.call_soon_threadsafe(self._loop.stop)
