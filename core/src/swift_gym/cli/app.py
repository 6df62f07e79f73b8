"""The `swift-gym` command group: every subcommand, errors turned into exit code 2, and the
ways a command ends from outside, handled once for all of them (`run`):

- Ctrl-C (KeyboardInterrupt) ends it quietly with exit code 130, without click's `Aborted!` or
  a traceback (`eval` stops its run first and prints its summary, see `runner`);
- SIGTERM raises SystemExit(143), so `with` and `finally` blocks clean up as on any exit;
- a closed stdout (`swift-gym replay t.jsonl | head`) ends it quietly with exit code 0, as Unix
  tools do, also when the pipe closes only for the flush at exit;
- after either signal, what the signal caught half built or half run is torn down without
  Python's notes about it ("Exception ignored in ...", asyncio's "Task was destroyed but it is
  pending", "coroutine ... was never awaited"): the command's own line says it was interrupted;
  a signal that landed in a finalizer, where Python drops its exception, is sent again
  (`signals`).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, NoReturn

import click

from .. import __version__
from ..errors import SwiftGymError
from . import signals
from .errors import EXIT_INTERRUPTED, EXIT_TERMINATED, from_library

# Each subcommand by name, in the order --help lists them: (its module here, the command in it).
# A command imports its own module only, when it runs (`swift-gym list` loads none of eval's
# and report's imports); --help and the docs load them all.
COMMANDS = {
    "list": ("listing", "list_envs"),
    "info": ("listing", "info"),
    "plugins": ("listing", "plugins"),
    "validate": ("validate", "validate"),
    "dataset": ("dataset", "dataset"),
    "play": ("play", "play"),
    "eval": ("evaluate", "evaluate"),
    "replay": ("replay", "replay"),
    "report": ("report", "report"),
    "new": ("new", "new"),
    "export": ("export", "export"),
    "serve": ("serve", "serve"),
    "doctor": ("doctor", "doctor"),
}

EPILOG = (
    "Exit codes: 0 ok; 1 problems found (bad rows, failed episodes, an API that is down, broken "
    "plugins) or no episode matches a filter; 2 usage errors (bad option, unknown env, invalid "
    "config); 130 Ctrl-C; 143 SIGTERM; 0 when the reader of stdout has gone. NO_COLOR turns "
    "colours off."
)


class _Quit(BaseException):
    """Ends the command with `code` and nothing printed; click lets it through untouched (it
    would print `Aborted!` for a KeyboardInterrupt and exit 1 for a closed pipe)."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def _quit_on_interrupt_or_closed_pipe(error: BaseException) -> NoReturn:
    if isinstance(error, BrokenPipeError):
        _drop_stdout()
        raise _Quit(0) from None
    raise _Quit(EXIT_INTERRUPTED) from None


class Group(click.Group):
    """Finds each command in COMMANDS when it is asked for, lists them in that order, and
    reports swift-gym errors briefly."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, name = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(f".{module}", __package__), name)
        return command

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:  # parsing prints --help and --version
            return super().make_context(*args, **kwargs)
        except (KeyboardInterrupt, BrokenPipeError) as error:
            _quit_on_interrupt_or_closed_pipe(error)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SwiftGymError as error:  # unknown env, invalid config, an API that is down...
            raise from_library(error) from None
        except (KeyboardInterrupt, BrokenPipeError) as error:
            _quit_on_interrupt_or_closed_pipe(error)


@click.group(cls=Group, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="swift-gym")
def cli() -> None:
    """Inspect swift-gym envs, check and make datasets, play, evaluate and replay episodes."""


def _drop_stdout() -> None:
    """Point stdout at /dev/null: what is still buffered for a closed pipe goes nowhere, and the
    interpreter's flush at exit cannot fail (Python's advice for SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is no file descriptor (captured): nothing to fix
        pass


def run(args: list[str] | None = None) -> NoReturn:
    """Run the command and exit with its code (see the module docstring)."""
    signals.install()
    try:
        try:
            cli.main(args, prog_name="swift-gym")
            code: Any = 0
        except SystemExit as exit:
            code = exit.code
        except _Quit as quit:
            code = quit.code
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
        code = 0
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED):  # eval's own handlers took the signal
        signals.quiet_teardown()
    sys.exit(code)
