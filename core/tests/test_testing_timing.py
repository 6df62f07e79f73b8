"""timed_call measures how long a coroutine holds the loop, not how long it takes."""

from __future__ import annotations

import asyncio
import time

import pytest

from swift_gym.testing.timing import timed_call


async def block_then_await(block: float, wait: float, then_block: float) -> str:
    time.sleep(block)
    await asyncio.sleep(wait)
    time.sleep(then_block)
    return "done"


async def test_the_longest_stretch_between_awaits_is_measured() -> None:
    result, longest = await timed_call(block_then_await(0.05, 0.3, 0.01), timeout=5)
    assert result == "done"
    assert 0.05 <= longest < 0.3  # the 0.3 s await is not counted


async def test_a_call_that_never_awaits_counts_whole() -> None:
    _, longest = await timed_call(block_then_await(0.04, 0, 0.04), timeout=5)
    assert longest >= 0.04  # sleep(0) yields once: two stretches of 0.04 s


async def test_exceptions_pass_through() -> None:
    async def fail() -> None:
        await asyncio.sleep(0)
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        await timed_call(fail(), timeout=5)


async def test_a_timeout_cancels_the_call() -> None:
    cleaned = []

    async def hang() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            cleaned.append(True)

    started = time.perf_counter()
    with pytest.raises(TimeoutError, match=r"did not return within 0.05 s"):
        await timed_call(hang(), timeout=0.05)
    assert cleaned == [True]
    assert time.perf_counter() - started < 5


async def test_futures_and_other_awaitables_work() -> None:
    future = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(0.01, future.set_result, 7)
    result, _ = await timed_call(future, timeout=5)
    assert result == 7


async def test_other_tasks_run_while_the_call_awaits() -> None:
    ticks = []

    async def ticker() -> None:
        for _ in range(5):
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    task = asyncio.create_task(ticker())
    await timed_call(asyncio.sleep(0.1), timeout=5)
    await task
    assert len(ticks) == 5
