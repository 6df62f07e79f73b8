"""The command's SIGINT and SIGTERM handlers: each raises (KeyboardInterrupt, `Terminated`) and
turns the teardown quiet, and a signal whose exception Python dropped is sent again.

Python runs a signal's handler in the main thread at the next bytecode it reaches, and that can
be inside a finalizer: a `__del__`, a weakref callback, a coroutine's warning that it was never
awaited, an import's module-lock callback. An exception raised there cannot propagate: Python
hands it to `sys.unraisablehook` and goes on, so the signal would be lost and the command run
on. `quiet_teardown`'s hook sends such a signal again to the main thread, from another thread
once the finalizer has returned, so the handler runs again where its exception reaches the
command.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
import warnings
from typing import Any

from ..plugins import Terminated, terminate

RESEND_SECONDS = 0.01
"""How long after a dropped signal it is sent again: time for the finalizer to return."""


def install() -> None:
    """SIGTERM raises `Terminated`, SIGINT KeyboardInterrupt; both turn the teardown quiet."""
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _interrupt)


def quiet_teardown() -> None:
    """From a signal on, no notes about objects it left half built or half run (they go as the
    command ends): a signal can land anywhere, inside an event loop's constructor or between a
    task's creation and its first step, and each such place printed its own note."""
    sys.unraisablehook = _resend_dropped_signal
    logging.getLogger("asyncio").disabled = True
    warnings.simplefilter("ignore")


def dropped_signal(error: BaseException | None) -> int | None:
    """The signal whose handler raised `error`, if it is a handler's exception."""
    if isinstance(error, Terminated) and isinstance(error.code, int):
        return error.code - 128
    if isinstance(error, KeyboardInterrupt):
        return signal.SIGINT
    return None


def _resend_dropped_signal(unraisable: Any) -> None:
    """Drop what Python could not raise, quietly, but send a dropped signal again."""
    signum = dropped_signal(unraisable.exc_value)
    if signum is None:
        return
    main = threading.main_thread().ident
    assert main is not None  # the main thread has started: it runs this hook
    resend = threading.Timer(RESEND_SECONDS, signal.pthread_kill, (main, signum))
    resend.daemon = True  # the command may end first, on its own
    with contextlib.suppress(RuntimeError):  # the interpreter is shutting down: ending anyway
        resend.start()


def _interrupt(signum: int, frame: Any) -> None:
    """SIGINT: Python's KeyboardInterrupt, and a quiet teardown from now on."""
    quiet_teardown()
    raise KeyboardInterrupt


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM: `terminate`'s exception, and a quiet teardown from now on."""
    quiet_teardown()
    terminate(signum, frame)
