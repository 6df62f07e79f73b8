"""Plain text columns and word wrapping, in time linear in the rows, for `list`, `plugins`, `info`.

rich's Table measures and renders every cell through its layout engine: fine for ten rows,
35 s for a plugin's 100,000 envs. Here every column but the last is as wide as its widest cell
(names are never cut), and the last one (description, status) is wrapped at spaces into the
width left, or, on a terminal too narrow for that, under its row: nothing is cut mid-word.
Control characters from package metadata or a plugin's error are shown escaped, never sent to
the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from rich.cells import cell_len, chop_cells

GAP = "  "
INDENT = "    "
MIN_LAST = 24
"""The last column needs this many cells beside the others; with fewer it goes under its row."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """`text` with control characters (escape sequences, bells, ...) shown as `\\xNN` escapes."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, broken at whitespace; a longer word is split."""
    width = max(1, width)
    lines: list[str] = []
    line, used = "", 0
    for word in visible(text).split():
        size = cell_len(word)
        if line and used + 1 + size <= width:
            line, used = f"{line} {word}", used + 1 + size
            continue
        if line:
            lines.append(line)
        if size <= width:
            line, used = word, size
        else:
            *whole, line = chop_cells(word, width)
            lines.extend(whole)
            used = cell_len(line)
    if line or not lines:
        lines.append(line)
    return lines


def column_lines(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int
) -> Iterator[list[tuple[str, str]]]:
    """The header, then each row, as its lines: (the fixed columns, a line of the last column).

    The caller joins the two parts, so it can style the last column (a status) on its own.
    """
    table = [[visible(cell) for cell in headers], *([visible(c) for c in row] for row in rows)]
    fixed = len(headers) - 1
    widths = [max(cell_len(row[index]) for row in table) for index in range(fixed)]
    left = sum(widths) + len(GAP) * fixed
    below = width - left < MIN_LAST  # too narrow: the last column goes under its row, indented
    last_width = max(MIN_LAST, width - len(INDENT)) if below else width - left
    blank = INDENT if below else " " * left
    for row in table:
        padded = (
            cell + " " * (size - cell_len(cell)) for cell, size in zip(row, widths, strict=False)
        )
        prefix = "".join(cell + GAP for cell in padded)
        pieces = wrap(row[fixed], last_width)
        if below:
            yield [(prefix.rstrip(), ""), *((blank, piece) for piece in pieces)]
        else:
            yield [(prefix, pieces[0]), *((blank, piece) for piece in pieces[1:])]
