"""The command's side of an `eval` run: its progress bar and notes on stderr, and SIGINT and
SIGTERM turned into the run's `Stop`.

The library never installs signal handlers (a notebook's or a trainer's are theirs); the
command does, while episodes run: from the view's `start` to its `end`. Before that (checking a
dataset, asking an API for its model) Ctrl-C raises KeyboardInterrupt as anywhere else in the
command (`app.run`: exit 130, quietly). During the run, the first signal stops new episodes and
gives those in flight `GRACE` seconds, a second one ends them at once; the command then prints
the summary and exits 128 + the signal's number.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from rich.text import Text

from ..evaluation.progress import ProgressBar
from ..evaluation.runner import GRACE, Stop
from .console import stderr
from .progress import progress_bar

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class EvalRun(ProgressBar):
    """The bar (only on a terminal) and notes of `eval`, and its signals as `stop`."""

    def __init__(self, stop: Stop):
        super().__init__(stderr(), progress_bar())
        self.stop = stop
        self._previous: dict[int, Any] = {}

    def start(self, label: str, total: int) -> None:
        loop = asyncio.get_running_loop()

        def handle(signum: int, frame: Any) -> None:
            loop.call_soon_threadsafe(self._on_signal, signum)

        try:
            for signum in SIGNALS:
                self._previous[signum] = signal.signal(signum, handle)
        except ValueError:  # not the main thread: signals stay as they are
            pass
        super().start(label, total)

    def end(self) -> None:
        try:
            super().end()
        finally:
            for signum, handler in self._previous.items():
                signal.signal(signum, handler)
            self._previous.clear()

    def _on_signal(self, signum: int) -> None:
        first = not self.stop.interrupted.is_set()
        name = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
        self.stop.interrupt(f"interrupted by {name}", signum)
        if first:
            self.console.print(
                Text.assemble(
                    ("interrupted: ", "bold yellow"),
                    f"no new episodes; the ones in flight get {GRACE:g} s to end "
                    "(press Ctrl-C again to stop them now)",
                )
            )
