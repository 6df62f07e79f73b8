"""The caller's actors of one env: slots handed out, reused, waited for, replaced.

Each actor has `shape.episodes` slots. An episode takes a free slot of a live actor; when there
is none it waits (backpressure) while the pool asks Ray for another actor, at most
`MAX_CREATING` at a time: Ray keeps an actor that does not fit pending until the cluster has
room, so a full cluster makes episodes wait, never fail. A slot given back goes to the longest
waiting episode first. An actor found dead (its node went away, its process died) leaves the
pool at once: the episodes it held end with an error, the waiting ones get a new actor.

Thread-safe and loop-agnostic: ms-swift drives a scheduler from more than one event loop, so
waiters are futures on their own loops, settled with `call_soon_threadsafe`. No Ray call is
made under the pool's lock, and no pool code runs on Ray's threads (which deliver results): a
Ray call that waits for its io thread while that thread waits for the lock would hang all.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any

from .settings import ActorShape

MAX_CREATING = 4
"""Actors asked for at once per env, while episodes wait."""
MAX_CREATE_FAILURES = 3
"""Consecutive actors that fail to start before the waiting episodes fail too."""


class ActorLost(Exception):
    """No actor could be started for the waiting episodes."""


@dataclass(eq=False)
class Actor:
    """One live actor of the pool and its free slots."""

    handle: Any
    free: int
    where: dict[str, Any] = field(default_factory=dict)
    alive: bool = True


class ActorPool:
    """Actors of the env `env_name`, each made by `create()` (an actor handle)."""

    def __init__(self, env_name: str, shape: ActorShape, actor_class: Any):
        self.env_name = env_name
        self.shape = shape
        self._actor_class = actor_class
        self._lock = threading.Lock()
        self._actors: list[Actor] = []
        self._creating: list[Any] = []
        self._waiters: collections.deque[asyncio.Future[Actor]] = collections.deque()
        self._starting = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._failures = 0
        self._closed = False

    @property
    def actors(self) -> list[Actor]:
        with self._lock:
            return list(self._actors)

    async def acquire(self) -> Actor:
        """A slot on a live actor, waiting as long as the cluster has no room for one."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._closed:
                raise ActorLost(f"the Ray placement of {self.env_name!r} was shut down")
            for actor in self._actors:
                if actor.alive and actor.free > 0:
                    actor.free -= 1
                    return actor
            waiter: asyncio.Future[Actor] = loop.create_future()
            self._waiters.append(waiter)
            more = self._reserve()
        self._start(more)
        try:
            return await waiter
        except asyncio.CancelledError:
            with self._lock:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            raise

    def release(self, actor: Actor) -> None:
        """Give back `actor`'s slot: to the first waiter, else free."""
        with self._lock:
            if actor.alive:
                actor.free += 1
                self._serve()

    def drop(self, actor: Actor) -> None:
        """`actor` died: out of the pool (killed, in case it lingers); waiters get a new one."""
        with self._lock:
            if not actor.alive:
                return
            actor.alive = False
            if actor in self._actors:
                self._actors.remove(actor)
            more = self._reserve()
        _kill(actor.handle)
        self._start(more)

    def shutdown(self) -> None:
        """Kill every actor, those still starting too; waiters fail."""
        with self._lock:
            self._closed = True
            handles = [actor.handle for actor in self._actors] + list(self._creating)
            self._actors.clear()
            self._creating.clear()
            waiters = list(self._waiters)
            self._waiters.clear()
        for handle in handles:
            _kill(handle)
        for waiter in waiters:
            _settle(waiter, error=ActorLost(f"the Ray placement of {self.env_name!r} shut down"))

    def _reserve(self) -> int:
        """How many more actors to ask for while episodes wait (under the lock): enough for
        the waiters, each actor bringing `shape.episodes` slots, less those already starting,
        at most `MAX_CREATING` at a time."""
        needed = -(-len(self._waiters) // self.shape.episodes)
        more = max(0, min(needed, MAX_CREATING) - self._starting)
        self._starting += more
        return more

    def _start(self, count: int) -> None:
        """Ask Ray for `count` actors, on the running loop, outside the lock: Ray's own
        threads deliver results, and must never wait for this pool's lock."""
        if not count:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop here: the next episode to wait asks instead
            with self._lock:
                self._starting -= count
            return
        for _ in range(count):
            task = loop.create_task(self._create())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _create(self) -> None:
        """Start one actor; once it answers, it joins the pool and serves the waiters."""
        handle = None
        error: BaseException | None = None
        where: dict[str, Any] = {}
        try:
            handle = self._actor_class.options(**self.shape.options()).remote(self.env_name)
            with self._lock:
                self._creating.append(handle)
            where = await asyncio.wrap_future(handle.where.remote().future())
        except Exception as failure:
            error = failure
        failed: list[asyncio.Future[Actor]] = []
        with self._lock:
            self._starting -= 1
            if handle is not None and handle in self._creating:
                self._creating.remove(handle)
            elif handle is not None:  # shut down meanwhile
                error = error or ActorLost("shut down")
            if error is None:
                self._failures = 0
                self._actors.append(Actor(handle, self.shape.episodes, where))
                self._serve()
            elif not self._closed:
                self._failures += 1
                if self._failures >= MAX_CREATE_FAILURES:
                    failed = list(self._waiters)
                    self._waiters.clear()
            more = 0 if self._closed else self._reserve()
        if error is not None and handle is not None:
            _kill(handle)
        lost = ActorLost(f"no Ray actor for env {self.env_name!r} could start: {error}")
        for waiter in failed:
            _settle(waiter, error=lost)
        self._start(more)

    def _serve(self) -> None:
        """Hand free slots to waiters, first come first served (under the lock)."""
        for actor in self._actors:
            while actor.alive and actor.free > 0 and self._waiters:
                waiter = self._waiters.popleft()
                actor.free -= 1
                _settle(waiter, actor=actor, pool=self)


def _settle(
    waiter: asyncio.Future[Actor],
    actor: Actor | None = None,
    pool: ActorPool | None = None,
    error: BaseException | None = None,
) -> None:
    """Settle `waiter` on its own loop; a slot whose waiter gave up goes back to the pool."""

    def settle() -> None:
        if waiter.done():  # cancelled meanwhile
            if actor is not None and pool is not None:
                pool.release(actor)
        elif error is not None:
            waiter.set_exception(error)
        else:
            waiter.set_result(actor)  # type: ignore[arg-type]

    try:
        waiter.get_loop().call_soon_threadsafe(settle)
    except RuntimeError:  # its loop has closed: nobody waits
        if actor is not None and pool is not None:
            threading.Thread(target=pool.release, args=(actor,), daemon=True).start()


def _kill(handle: Any) -> None:
    import ray

    with contextlib.suppress(Exception):  # already gone, or the connection is: nothing to end
        ray.kill(handle, no_restart=True)
