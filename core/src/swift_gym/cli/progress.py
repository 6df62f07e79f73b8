"""Progress bars on stderr that vanish when stderr is not a terminal (pipes, CI logs, tests)."""

from __future__ import annotations

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn

from ..evaluation.bar_columns import TimesColumn
from .console import stderr


def progress_bar(unit: str | None = "episodes") -> Progress:
    """A bar for counted work (`unit`: episodes, rows) or, with `unit=None`, for bytes read."""
    console = stderr()
    columns = [
        TextColumn("{task.description}", markup=False),  # names can come from a server
        BarColumn(),
        MofNCompleteColumn() if unit else TaskProgressColumn(),
        TimesColumn(unit),
    ]
    return Progress(*columns, console=console, transient=True, disable=not console.is_terminal)
