"""Exit codes scripts can trust, and the one way a command stops with an error.

0: done, nothing wrong. 1: the command ran and found problems (bad dataset rows, episodes that
failed, plugins that did not load) or nothing its filters ask for. 2: it could not run as asked
(bad option, unknown env, a config that does not validate, a missing file); click uses 2 for its
own usage errors too.
130 and 143: stopped by Ctrl-C or SIGTERM (128 + the signal's number, as shells report it).
The library raises `SwiftGymError`s, never these: `from_library` turns one into a command error.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..errors import SwiftGymError

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


class NothingFoundError(CommandError):
    """The command ran as asked and found nothing its filters match: exit 1, not a usage error."""

    exit_code = EXIT_PROBLEMS


def from_library(error: SwiftGymError) -> CommandError:
    """A swift-gym error as the command reports it: what the library found (bad dataset rows,
    an endpoint that is down) exits 1; anything else is the caller's to fix and exits 2."""
    from ..evaluation.errors import BadRowsError, EndpointError

    command = CommandError(str(error))
    if isinstance(error, (BadRowsError, EndpointError)):
        command.exit_code = EXIT_PROBLEMS
    return command
