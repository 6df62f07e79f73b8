"""`RowTools` interrupted by a signal before an env's reset starts (CI runs caught SIGTERM and
SIGINT landing there): the command's one line, and neither "coroutine ... was never awaited"
nor "Task was destroyed but it is pending" after it."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from swift_gym.registry import default_registry
from swift_gym.tools.for_rows import RowTools


def test_a_signal_before_reset_starts_leaves_no_unawaited_coroutine_or_pending_task(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with RowTools(default_registry()) as row_tools:
        loop = row_tools._loop
        assert loop is not None
        run = loop.run_until_complete
        calls = 0

        def interrupted(awaitable):  # the signal handler raises before the loop runs it
            nonlocal calls
            calls += 1
            if calls == 1:  # after it wrapped the coroutine in a task, as the real one does
                asyncio.ensure_future(awaitable, loop=loop)  # noqa: RUF006 (dropped, as there)
                raise KeyboardInterrupt
            return run(awaitable)

        loop.run_until_complete = interrupted  # type: ignore[method-assign]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(KeyboardInterrupt):
                row_tools.tools_text({"name": "frozen_lake", "seed": 0})
            gc.collect()
    assert calls == 3  # reset interrupted, its task cancelled and ended, close still run
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert "Task was destroyed" not in caplog.text
