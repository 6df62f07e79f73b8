"""Timing env calls: how long each call held the event loop, and a limit on the whole call.

An env that computes for a second inside `step` stalls every other rollout on the loop, while
one that awaits I/O for a second does not. So the kit times each stretch the coroutine runs
between two suspensions, not the call's wall time, and the budget applies to the longest one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Generator
from typing import Any


class _Timed:
    """Awaits an awaitable, recording the longest stretch it ran without yielding."""

    def __init__(self, awaitable: Awaitable[Any]):
        self._awaitable = awaitable
        self.longest = 0.0

    def _record(self, started: float) -> None:
        self.longest = max(self.longest, time.perf_counter() - started)

    def __await__(self) -> Generator[Any, Any, Any]:
        inner = self._awaitable.__await__()
        resume: Any = inner.send
        value: Any = None
        while True:
            started = time.perf_counter()
            try:
                yielded = resume(value)
            except StopIteration as stop:
                self._record(started)
                return stop.value
            except BaseException:
                self._record(started)
                raise
            self._record(started)
            try:
                value = yield yielded
            except GeneratorExit:
                inner.close()
                raise
            except BaseException as error:  # cancellation and the like go to the env's code
                resume, value = inner.throw, error
            else:
                resume = inner.send


async def _await(timed: _Timed) -> Any:
    return await timed


async def timed_call(awaitable: Awaitable[Any], timeout: float) -> tuple[Any, float]:
    """`(result, longest blocking stretch in seconds)`; raises TimeoutError after `timeout`."""
    timed = _Timed(awaitable)
    try:
        result = await asyncio.wait_for(_await(timed), timeout)
    except asyncio.TimeoutError:
        raise TimeoutError(f"did not return within {timeout:g} s") from None
    return result, timed.longest
