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

import os
import sys
from typing import Any, NoReturn

import click

from .. import __version__
from ..errors import SwiftGymError
from . import signals
from .dataset import dataset
from .errors import EXIT_INTERRUPTED, EXIT_TERMINATED, from_library
from .evaluate import evaluate
from .export import export
from .listing import info, list_envs, plugins
from .new import new
from .play import play
from .replay import replay
from .report import report
from .serve import serve
from .validate import validate

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
    """Lists commands in the order they were added, and reports swift-gym errors briefly."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

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


for command in (list_envs, info, plugins, validate, dataset, play, evaluate, replay, report, new):
    cli.add_command(command)
cli.add_command(export)
cli.add_command(serve)


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
