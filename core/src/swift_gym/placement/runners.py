"""Where one env's calls run in this process: a `Runner`, the interface every form satisfies.

`Runner.call(function, timeout)` runs an env's method where that env lives and awaits it; `busy`
says a call has not really ended (one that timed out may still run). `swift-gym serve` gets each
session's runner from `Isolation` (its `--isolation`); a Ray actor (`ray.host`) plays each
episode on an `InlineRunner` or an `EnvWorker` the same way. The forms, traded between safety and
speed:

- `auto` (serve's default): `inline` for an env that declares `never_blocks` (FrozenLake,
  the Gymnasium toy-text envs: the conformance kit's `never_blocks` check holds them to it),
  `thread` for every other env. The env's package declares it, never a client; a session that
  resets into an env of the other kind changes its runner.
- `thread`: each session's env on a thread and loop of its own (`EnvWorker`). An
  env that blocks (`time.sleep`, seconds of computing, a hang) holds only its own session. Each
  call is a hop between threads: with hundreds of FrozenLake sessions, about a third of the
  server's steps/s (benchmarks/README.md, "Remote envs").
- `shared`: sessions share `SHARED_LOOPS` worker loops, each session pinned to one for its env's
  life. The same hop, but a few threads instead of hundreds contend for the GIL, and a loop
  woken once runs every call that arrived meanwhile. An env that blocks stalls the sessions on
  its loop (not the server): their calls time out like its own; a loop with a call past its
  timeout gets no new sessions until it is free again, and the next reset of a session whose
  call timed out lands on a loop that is not blocked.
- `inline`: envs run on the caller's own loop: no hop at all, the fastest. For envs known to
  be cooperative (they await, never block: FrozenLake, envs that call remote services with an
  async client). One that blocks stalls every session and the sockets while it blocks; the
  step timeout still ends one that awaits too long, but cannot interrupt one that blocks.

Every form gives the same answers: a raising or exiting env ends only its episode, timeouts are
error frames, and a call that has not really ended keeps its slot counted (`busy`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, Protocol

from ..plugins import describe_error
from . import ISOLATIONS
from .worker import ENV_CANCELLED, CallAborted, CallTimeout, EnvWorker, Lane

SHARED_LOOPS = 4
"""Worker loops of `--isolation shared` (the GIL lets one thread run Python at a time, so more
loops help only envs that wait in C or system calls without awaiting)."""


class Runner(Protocol):
    """Where one env runs (a session's, an actor's episode's): `call` it there; `busy` while a
    call has not ended; `kind` is its form (`thread`, `shared` or `inline`)."""

    kind: str

    @property
    def busy(self) -> bool: ...

    async def call(self, function: Callable[[], Any], timeout: float) -> Any: ...

    def stop(self) -> None: ...


class InlineRunner:
    """Calls on the caller's loop, in the caller's task; the timeout cancels the call."""

    kind = "inline"
    busy = False  # a call never outlives `call`: an env that blocks blocks the caller too

    async def call(self, function: Callable[[], Any], timeout: float) -> Any:
        task = asyncio.current_task()
        fired = False

        def expire() -> None:
            nonlocal fired
            fired = True
            if task is not None:
                task.cancel()

        timer = asyncio.get_running_loop().call_later(timeout, expire)
        try:
            result = function()
            if inspect.isawaitable(result):
                result = await result
        except asyncio.CancelledError:
            if not fired:
                if _cancel_requested(task):  # the session is ending: let it
                    raise
                raise CallAborted(ENV_CANCELLED) from None
            result = None
        except Exception:
            raise
        except BaseException as error:  # an env's sys.exit() must not reach the server
            raise CallAborted(describe_error(error)) from None
        finally:
            timer.cancel()
        if fired:  # cancelled by the timeout (or it ignored the cancel and returned late)
            uncancel = getattr(task, "uncancel", None)  # Python 3.11+
            if uncancel is not None:
                uncancel()
            raise CallTimeout(f"did not return within {timeout:g} s")
        return result

    def stop(self) -> None:
        pass


def _cancel_requested(task: asyncio.Task[Any] | None) -> bool:
    """Whether someone cancelled `task` (always True where Python cannot tell: before 3.11)."""
    cancelling = getattr(task, "cancelling", None)
    return cancelling is None or cancelling() > 0


class SharedRunner:
    """One session's lane on a worker of a `LoopPool`."""

    kind = "shared"

    def __init__(self, pool: LoopPool, worker: EnvWorker):
        self._pool = pool
        self.worker = worker
        self._lane = Lane()

    @property
    def busy(self) -> bool:
        return self._lane.busy

    async def call(self, function: Callable[[], Any], timeout: float) -> Any:
        return await self.worker.call(function, timeout, self._lane)

    def stop(self) -> None:
        self._pool.release(self.worker)


class LoopPool:
    """`size` worker loops shared by sessions; a session joins the least used free one."""

    def __init__(self, size: int = SHARED_LOOPS):
        self.size = size
        self._lanes: dict[EnvWorker, int] = {}

    def runner(self) -> SharedRunner:
        free = [worker for worker in self._lanes if not worker.overdue]
        if len(free) < self.size:  # start lazily; replace a loop that is blocked
            worker = EnvWorker(f"swift-gym-shared-{len(self._lanes)}")
            self._lanes[worker] = 0
        else:
            worker = min(free, key=self._lanes.__getitem__)
        self._lanes[worker] += 1
        return SharedRunner(self, worker)

    def release(self, worker: EnvWorker) -> None:
        """A session has left `worker`; a loop beyond `size` with nobody on it is stopped."""
        self._lanes[worker] -= 1
        if not self._lanes[worker] and len(self._lanes) > self.size and not worker.busy:
            del self._lanes[worker]
            worker.stop()

    def stop(self) -> None:
        for worker in self._lanes:
            worker.stop()
        self._lanes.clear()


class Isolation:
    """Makes each session's `Runner`, as `isolation` (serve's `--isolation`) says.

    `never_blocks(env name)` tells `auto` whether that env's class declares `never_blocks`
    (False for a name it cannot resolve: the safe side)."""

    def __init__(self, isolation: str = "auto", never_blocks: Callable[[str], bool] | None = None):
        if isolation not in ISOLATIONS:
            raise ValueError(f"isolation must be one of {', '.join(ISOLATIONS)}, not {isolation!r}")
        self.isolation = isolation
        self._never_blocks = never_blocks or (lambda name: False)
        self._pool = LoopPool() if isolation == "shared" else None

    def kind(self, env_name: str | None = None) -> str:
        """The runner kind for a session about to play `env_name` (None: not known yet)."""
        if self.isolation != "auto":
            return self.isolation
        return "inline" if env_name is not None and self._never_blocks(env_name) else "thread"

    def runner(self, name: str, kind: str | None = None) -> Runner:
        """A new runner of `kind` (default: `kind()`); `name` names its thread, if it has one."""
        kind = kind or self.kind()
        if kind == "shared" and self._pool is not None:
            return self._pool.runner()
        if kind == "inline":
            return InlineRunner()
        return EnvWorker(name)

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.stop()
