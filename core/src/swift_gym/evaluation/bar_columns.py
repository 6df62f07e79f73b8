"""The column that says, in words, how a progress bar is doing: `elapsed 0:01:05, left 0:02:10,
38.2 episodes/s`. Rich's own time columns are bare numbers a reader must guess the meaning of.

Imported only where a bar is drawn (it imports rich).
"""

from __future__ import annotations

from rich.progress import ProgressColumn, Task
from rich.table import Column
from rich.text import Text


def clock(seconds: float | None) -> str:
    """`H:MM:SS`, or `?` while unknown."""
    if seconds is None:
        return "?"
    minutes, second = divmod(int(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}:{minute:02d}:{second:02d}"


def rate(per_second: float | None, unit: str | None) -> str:
    """`38.2 episodes/s`; with no unit, bytes as `1.5 MB/s`; `?` while unmeasured."""
    if per_second is None:
        return f"? {unit or 'MB'}/s"
    if unit is None:
        per_second /= 1e6
    shown = f"{per_second:,.0f}" if per_second >= 100 else f"{per_second:.3g}"
    return f"{shown} {unit or 'MB'}/s"


class TimesColumn(ProgressColumn):
    """Elapsed and remaining time, labelled, and the rate in `unit`s per second (no unit: the
    bar counts bytes). Work of unknown size has no time left."""

    max_refresh = 0.5  # as rich's time columns: numbers that jitter cannot be read

    def __init__(self, unit: str | None):
        super().__init__(table_column=Column(no_wrap=True))  # one line, however narrow
        self.unit = unit

    def render(self, task: Task) -> Text:
        parts = [f"elapsed {clock(task.elapsed)}"]
        if task.total is not None:
            parts.append(f"left {clock(task.time_remaining)}")
        speed = task.finished_speed or task.speed
        parts.append(rate(speed, self.unit))
        return Text(", ".join(parts), style="progress.elapsed")
