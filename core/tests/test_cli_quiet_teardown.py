"""After SIGINT or SIGTERM the command tears down what the signal left half built or half run
without Python's notes about each (a CI run of test_cli_signals caught an event loop interrupted
inside its constructor, whose `__del__` then printed a traceback). Each case runs in a process of
its own: the handlers change process-wide hooks."""

from __future__ import annotations

import subprocess
import sys

import pytest

NOISE = """
import asyncio, gc

class HalfBuilt:
    def __del__(self):
        raise AttributeError("no attribute '_debug'")  # what the half-built loop printed

async def reset():
    pass

HalfBuilt()
loop = asyncio.new_event_loop()
loop.create_task(reset())  # a task made, never run: "Task was destroyed but it is pending"
reset()  # "coroutine 'reset' was never awaited"
del loop
gc.collect()
"""


def teardown(signal_handler: str | None) -> str:
    prelude = ""
    if signal_handler:
        prelude = (
            f"from swift_gym.cli.signals import {signal_handler}\n"
            f"try:\n    {signal_handler}(2, None)\nexcept BaseException:\n    pass\n"
        )
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", prelude + NOISE],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_without_a_signal_python_prints_its_notes() -> None:
    said = teardown(None)  # the control: the noise is real
    assert "Exception ignored" in said
    assert "Task was destroyed but it is pending" in said
    assert "was never awaited" in said


@pytest.mark.parametrize("handler", ["_interrupt", "_terminate"])
def test_after_a_signal_the_teardown_is_quiet(handler: str) -> None:
    assert teardown(handler) == ""
