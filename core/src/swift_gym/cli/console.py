"""The two rich consoles every command writes to: results on stdout, the rest on stderr.

rich honours NO_COLOR and FORCE_COLOR, and drops colour and animation when the stream is not a
terminal, so piped output is plain text. `--json` output bypasses rich entirely.
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.text import Text

from . import visible

CELL_SHOWN = 1000
"""Characters of one table cell shown at most: a cell holds a name, a number, a status."""


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """Leave a closed pipe to the command (`app.run`: quietly, exit 0); rich would exit 1."""
        self.quiet = True
        raise BrokenPipeError("the reader of this output has gone")


@cache
def stdout() -> Console:
    """Results: tables, summaries, episodes. Lines are never broken (`soft_wrap`), so each
    reported problem stays one greppable line; tables still fit the width."""
    return _Console(highlight=False, soft_wrap=True)


@cache
def stderr() -> Console:
    """Progress bars, warnings and errors, so stdout stays clean for pipes."""
    return _Console(stderr=True, highlight=False, soft_wrap=True)


def print_trimmed(renderable: Any) -> None:
    """Print `renderable` on stdout without the spaces that end its lines: rich pads every cell
    of a borderless table to its column's width, which a pipe, a file or a diff would keep."""
    out = stdout()
    options = out.options.update(no_wrap=True, overflow="ignore")  # as print's soft_wrap
    for line in Segment.split_lines(out.render(renderable, options)):
        while line and not line[-1].control and not line[-1].text.strip(" "):
            line.pop()
        if line:
            line[-1] = Segment(line[-1].text.rstrip(" "), line[-1].style)
        out.print(Text.assemble(*((s.text, s.style or "") for s in line if not s.control)))


def print_json(value: Any) -> None:
    """`value` as indented strict JSON on stdout, for `--json`: no colour, no wrapping, no NaN."""
    from ..json_text import dumps

    sys.stdout.write(dumps(value, indent=2, strict=True) + "\n")
    sys.stdout.flush()


def cells(*values: Any) -> list[Text]:
    """Table cells from data, made visible: `[brackets]` stay text (never rich markup), and
    controls and invisible characters are shown escaped (see `visible`)."""

    def cell(value: Any) -> Text:
        if isinstance(value, Text):
            return value
        return Text("") if value is None else visible.rich(visible.brief(value, CELL_SHOWN))

    return [cell(value) for value in values]
