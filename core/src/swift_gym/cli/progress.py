"""Progress bars on stderr that vanish when stderr is not a terminal (pipes, CI logs, tests)."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .console import stderr


def progress_bar(counting: bool = True) -> Progress:
    """A bar for counted work (episodes, rows) or, with `counting=False`, for bytes read."""
    console = stderr()
    columns = [
        TextColumn("{task.description}", markup=False),  # names can come from a server
        BarColumn(),
        MofNCompleteColumn() if counting else TaskProgressColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    ]
    return Progress(*columns, console=console, transient=True, disable=not console.is_terminal)
