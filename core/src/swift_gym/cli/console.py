"""The two rich consoles every command writes to: results on stdout, the rest on stderr.

rich honours NO_COLOR and FORCE_COLOR, and drops colour and animation when the stream is not a
terminal, so piped output is plain text. `--json` output bypasses rich entirely.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from typing import Any

from rich.console import Console
from rich.text import Text


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


def print_json(value: Any) -> None:
    """`value` as indented JSON on stdout, for `--json`: no colour, no wrapping."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def cells(*values: Any) -> list[Text]:
    """Table cells shown as they are: data may hold `[brackets]` that rich would read as markup."""
    return [
        value if isinstance(value, Text) else Text("" if value is None else str(value))
        for value in values
    ]
