"""What a run tells whoever watches it: a progress bar, and notes (waiting on a server, stopping).

The runner reports to a `RunView`: `Silent` (the default: notes go to the `swift_gym` logger,
nothing else is shown), `ProgressBar` (`progress=True`: a rich bar and the notes on stderr; in
Jupyter rich draws it in the cell), or the caller's own object (the command passes its view,
which also installs its signal handlers while episodes run: see `cli.evaluate`). Code deep in a
run (a policy retrying a request) calls `note`, which reaches the view of the run it is part of.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

logger = logging.getLogger("swift_gym")

_STYLES = {"waiting": "yellow", "stopping": "bold red"}


class RunView(Protocol):
    """Told when episodes start to run, as each ends, what the run has to say, and the end."""

    def start(self, label: str, total: int) -> None:
        """Episodes begin (the policy is ready, the output open): `total` of them, by `label`."""

    def advance(self, record: dict[str, Any], wins: int) -> None:
        """An episode ended with `record`; `wins` succeeded so far."""

    def note(self, kind: str, message: str) -> None:
        """`kind` ("waiting", "stopping"): something the watcher should know, in one line."""

    def end(self) -> None:
        """The run is over (also after an error): release what `start` took."""


class Silent:
    """No bar; notes are logged as warnings (Python shows them on stderr unless told not to)."""

    def start(self, label: str, total: int) -> None:
        return None

    def advance(self, record: dict[str, Any], wins: int) -> None:
        return None

    def note(self, kind: str, message: str) -> None:
        logger.warning("swift-gym: %s: %s", kind, message)

    def end(self) -> None:
        return None


class ProgressBar:
    """A rich progress bar of episodes and the notes, on `console` (default: a stderr console)."""

    def __init__(self, console: Console | None = None, bar: Progress | None = None):
        from rich import progress
        from rich.console import Console

        from .bar_columns import TimesColumn

        self.console = console or Console(stderr=True, highlight=False)
        self.bar = bar or progress.Progress(
            progress.TextColumn("{task.description}", markup=False),  # names from a server
            progress.BarColumn(),
            progress.MofNCompleteColumn(),
            TimesColumn("episodes"),
            console=self.console,
            transient=True,
        )
        self._task: Any = None
        self._label = ""

    def start(self, label: str, total: int) -> None:
        self._label = label
        self.bar.start()
        self._task = self.bar.add_task(label, total=total)

    def advance(self, record: dict[str, Any], wins: int) -> None:
        self.bar.update(self._task, advance=1, description=f"{self._label}: {wins} won")

    def note(self, kind: str, message: str) -> None:
        from rich.text import Text

        self.console.print(Text.assemble((f"{kind}: ", _STYLES.get(kind, "bold")), message))

    def end(self) -> None:
        self.bar.stop()


_current: ContextVar[RunView | None] = ContextVar("swift_gym_run_view", default=None)


def view_of(progress: bool | RunView) -> RunView:
    """The view `evaluate(progress=...)` asks for."""
    if progress is True:
        return ProgressBar()
    if progress is False or progress is None:
        return Silent()
    return progress


def note(kind: str, message: str) -> None:
    """Tell the view of the run this is called from (logged when outside any run)."""
    view = _current.get()
    (view or Silent()).note(kind, message)


def watching(view: RunView) -> Any:
    """Make `view` the one `note` reaches in this context; returns the token to `reset` with."""
    return _current.set(view)


def reset(token: Any) -> None:
    _current.reset(token)
