"""Running TextArena's code for one episode: its own random stream, no prints, a time limit.

TextArena seeds the process-wide `random` in every game's reset (`random.seed(seed)` in
`ta.State`) and draws from it during play. Left alone, that would reseed everyone else's
`random`, and two episodes played side by side would draw from one stream, so neither would
replay from its seed. Instead, the name `random` in TextArena's modules is bound to a proxy that
sends each call to the generator of the episode running in the current context (a
`contextvars` variable, so worker threads see it), and to the real module otherwise: code
outside an episode sees TextArena unchanged. `print` in those modules is silenced the same way
(some games print while generating puzzles, which would corrupt the command's output).

Every call runs in a worker thread under a deadline: a game that loops on odd input ends its
episode with a clear error instead of freezing the event loop (the thread cannot be killed; it
is abandoned and the env refuses further calls until the next reset builds a new game).
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import contextvars
import random as _random_module
import sys
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_episode_rng: contextvars.ContextVar[_random_module.Random | None] = contextvars.ContextVar(
    "swift_gym_textarena_rng", default=None
)
_RNG_METHODS = frozenset(
    name
    for name in dir(_random_module)
    if getattr(getattr(_random_module, name), "__self__", None) is _random_module._inst
)
"""The module-level functions of `random` that are methods of its hidden global generator."""


class _RandomProxy:
    """Stands for the `random` module inside TextArena: the episode's generator, if any."""

    def __getattr__(self, name: str) -> Any:
        rng = _episode_rng.get()
        if rng is not None and name in _RNG_METHODS:
            return getattr(rng, name)
        return getattr(_random_module, name)


def _quiet_print(*args: Any, **kwargs: Any) -> None:
    """`print` inside TextArena: dropped during an episode, as usual elsewhere."""
    if _episode_rng.get() is None:
        builtins.print(*args, **kwargs)


RANDOM_PROXY = _RandomProxy()


_scanned: tuple[int, str | None] = (-1, None)
"""`sys.modules` as install() last saw it: its size and newest name."""


def install() -> int:
    """Bind `random` and `print` in every loaded TextArena module; returns how many changed.

    Called before each game is built (a game imports its helpers on first use). Walking
    `sys.modules` costs ~80 us with TextArena loaded, more than a game's step, so the walk is
    skipped while nothing was imported since the last one (same size, same newest module).
    """
    global _scanned
    modules = (len(sys.modules), next(reversed(sys.modules), None))
    if modules == _scanned:
        return 0
    changed = 0
    for name, module in list(sys.modules.items()):
        if not (name == "textarena" or name.startswith("textarena.")) or module is None:
            continue
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        if namespace.get("random") is _random_module:
            namespace["random"] = RANDOM_PROXY
            changed += 1
        if namespace.get("print") is not _quiet_print:
            namespace["print"] = _quiet_print
    _scanned = modules
    return changed


async def preload() -> None:
    """Import TextArena (about 0.4 s: openai, nltk, its registry) off the loop, untimed."""
    if "textarena.envs" not in sys.modules:
        await asyncio.get_running_loop().run_in_executor(None, _import_textarena)


def _import_textarena() -> None:
    with keep_global_random():
        import textarena  # noqa: F401


@contextlib.contextmanager
def keep_global_random() -> Iterator[None]:
    """Restore the global `random` state afterwards: importing TextArena and its game modules
    draws from it (their imports run outside any episode's proxy)."""
    state = _random_module.getstate()
    try:
        yield
    finally:
        _random_module.setstate(state)


class GameTimeout(RuntimeError):
    """A TextArena call did not return in time."""


async def run(rng: _random_module.Random, timeout: float, call: Callable[..., T], *args: Any) -> T:
    """`call(*args)` in a worker thread with `rng` as TextArena's `random`, within `timeout` s."""
    context = contextvars.copy_context()
    context.run(_episode_rng.set, rng)
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(None, context.run, call, *args)
    try:
        return await asyncio.wait_for(asyncio.shield(future), timeout)
    except asyncio.TimeoutError:
        future.add_done_callback(_drop_result)
        raise GameTimeout(f"no answer within {timeout:g} s") from None


def _drop_result(future: asyncio.Future[Any]) -> None:
    """Retrieve an abandoned call's outcome, so asyncio does not log it as never retrieved."""
    if not future.cancelled():
        future.exception()
