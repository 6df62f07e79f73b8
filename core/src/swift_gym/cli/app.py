"""The `swift-gym` command group: every subcommand, and errors turned into exit code 2."""

from __future__ import annotations

from typing import Any

import click

from .. import __version__
from ..errors import SwiftGymError
from .dataset import dataset
from .errors import CommandError
from .evaluate import evaluate
from .listing import info, list_envs, plugins
from .new import new
from .play import play
from .replay import replay
from .report import report
from .validate import validate

EPILOG = (
    "Exit codes: 0 ok; 1 problems found (bad rows, failed episodes, broken plugins); "
    "2 usage errors (bad option, unknown env, invalid config). NO_COLOR turns colours off."
)


class Group(click.Group):
    """Lists commands in the order they were added, and reports swift-gym errors briefly."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SwiftGymError as error:  # unknown env, invalid config...: the user can fix it
            raise CommandError(str(error)) from None


@click.group(cls=Group, epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="swift-gym")
def cli() -> None:
    """Inspect swift-gym envs, check and make datasets, play, evaluate and replay episodes."""


for command in (list_envs, info, plugins, validate, dataset, play, evaluate, replay, report, new):
    cli.add_command(command)
