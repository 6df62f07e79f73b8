"""`RowTools` interrupted by a signal before an env's reset starts (a CI run caught SIGTERM
landing there): the command's one line, and no "coroutine ... was never awaited" warning."""

from __future__ import annotations

import gc
import warnings

import pytest

from swift_gym.registry import default_registry
from swift_gym.row_tools import RowTools


def test_a_signal_before_reset_starts_leaves_no_unawaited_coroutine() -> None:
    with RowTools(default_registry()) as row_tools:
        loop = row_tools._loop
        assert loop is not None
        run = loop.run_until_complete
        calls = 0

        def interrupted(awaitable):  # the signal handler raises before the loop runs it
            nonlocal calls
            calls += 1
            if calls == 1:
                raise KeyboardInterrupt
            return run(awaitable)

        loop.run_until_complete = interrupted  # type: ignore[method-assign]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(KeyboardInterrupt):
                row_tools.tools_text({"name": "frozen_lake", "seed": 0})
            gc.collect()
    assert calls == 2  # reset interrupted, close still run
    assert not [w for w in caught if "never awaited" in str(w.message)]
