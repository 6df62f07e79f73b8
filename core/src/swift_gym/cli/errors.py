"""Exit codes scripts can trust, and the one way a command stops with an error.

0: done, nothing wrong. 1: the command ran and found problems (bad dataset rows, episodes that
failed, plugins that did not load). 2: it could not run as asked (bad option, unknown env,
a config that does not validate, a missing file); click uses 2 for its own usage errors too.
130 and 143: stopped by Ctrl-C or SIGTERM (128 + the signal's number, as shells report it).
"""

from __future__ import annotations

from typing import IO, Any

import click

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT)."""
EXIT_TERMINATED = 143
"""SIGTERM (128 + SIGTERM)."""


class CommandError(click.ClickException):
    """Stops the command with `message` on stderr and exit code 2, without a traceback."""

    exit_code = EXIT_USAGE

    def show(self, file: IO[Any] | None = None) -> None:
        from rich.text import Text

        from . import visible
        from .console import stderr

        # messages quote data (values, names, lines): controls in them are shown escaped
        message = visible.rich(self.format_message())
        stderr().print(Text.assemble(("error: ", "bold red"), message))
