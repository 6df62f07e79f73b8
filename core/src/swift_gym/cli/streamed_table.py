"""A table printed a row at a time, for listings of any length (`replay --list`).

rich sizes a table's columns from all its rows, so it holds every row before the first line
(and renders a table of 100,000 rows in minutes). Here each column's width is set at the first
row (the heading's or the first value's, then a share of the width left, up to a most; all
narrowed to fit the terminal), and each row is drawn as it comes, in rich's heavy-head box
style: the first line comes as soon as the first row is known, and memory holds one row. A
value wider than its column wraps, never cut. Without colour (a pipe, NO_COLOR) the lines are
written as plain text, without rich's rendering.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

Column = tuple[str, int, int]
"""A heading, its share of the width left, and the most width it takes."""


class StreamedTable:
    """Prints `columns`' headings at the first row, each row as it is added, the bottom border
    at `close`. `restart` ends the table and starts one with other columns."""

    def __init__(self, console: Console, columns: Sequence[Column]):
        self.console = console
        self.columns = tuple(columns)
        self._widths: list[int] = []
        self._open = False

    def add_row(self, cells: Sequence[Text]) -> None:
        if not self._open:
            self._widths = _fitted(
                self.console.width, _widths(self.console.width, self.columns, cells)
            )
            headings = [Text(name, style="bold") for name, _, _ in self.columns]
            self._emit(
                [
                    self._border("┏", "━", "┳", "┓"),
                    *self._lines(headings, "┃"),
                    self._border("┡", "━", "╇", "┩"),
                ]
            )
            self._open = True
        self._emit(self._lines(cells, "│"))

    def restart(self, columns: Sequence[Column]) -> None:
        """End this table (if it has rows) and go on with `columns`."""
        self.close()
        self.columns = tuple(columns)

    def close(self) -> None:
        """Draw the bottom border, if any row was printed."""
        if self._open:
            self._open = False
            self._emit([self._border("└", "─", "┴", "┘")])

    def _border(self, left: str, line: str, between: str, right: str) -> Text:
        return Text(left + between.join(line * (width + 2) for width in self._widths) + right)

    def _lines(self, cells: Sequence[Text], bar: str) -> list[Text]:
        """One row's lines: each cell wrapped to its column, padded, between bars."""
        wrapped = [
            _wrapped(self.console, cell, width)
            for cell, width in zip(cells, self._widths, strict=True)
        ]
        lines = []
        for number in range(max(len(parts) for parts in wrapped)):
            line = Text(bar)
            for parts, width in zip(wrapped, self._widths, strict=True):
                part = parts[number] if number < len(parts) else Text()
                line.append(" ")
                line.append_text(part)
                line.append(" " * (width - part.cell_len) + " " + bar)
            lines.append(line)
        return lines

    def _emit(self, lines: list[Text]) -> None:
        if self.console.color_system is None:  # plain text: no rendering needed
            file = self.console.file
            file.write("".join(line.plain + "\n" for line in lines))
            file.flush()
        else:
            self.console.print(Text("\n").join(lines), crop=False, overflow="ignore")


def _wrapped(console: Console, cell: Text, width: int) -> list[Text]:
    if "\n" not in cell.plain and cell.cell_len <= width:
        return [cell]
    return list(cell.wrap(console, width, overflow="fold"))


def _widths(total: int, columns: Sequence[Column], first: Sequence[Text]) -> list[int]:
    """Each column's text width: its heading's or its first row's (up to its most), then its
    share of what the borders and padding leave, up to its most."""
    widths = [
        max(len(name), min(most, cell.cell_len))
        for (name, _, most), cell in zip(columns, first, strict=True)
    ]
    left = total - 3 * len(columns) - 1 - sum(widths)
    shares = sum(share for _, share, _ in columns) or 1
    if left > 0:
        widths = [
            max(width, min(most, width + left * share // shares))
            for width, (_, share, most) in zip(widths, columns, strict=True)
        ]
    return widths


def _fitted(total: int, widths: list[int]) -> list[int]:
    """`widths` narrowed, the widest first, until the table fits `total` (each at least 1)."""
    widths = list(widths)
    excess = sum(widths) + 3 * len(widths) + 1 - total
    while excess > 0 and max(widths) > 1:
        widest = widths.index(max(widths))
        widths[widest] -= 1
        excess -= 1
    return widths
