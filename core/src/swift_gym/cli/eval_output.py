"""What `eval` does about its `-o` besides writing it: it refuses to replace a file that holds
something (the episodes of an earlier run cost model calls), and after Ctrl-C or SIGTERM it
prints the command that plays the episodes the run did not, into a file of their own.

eval has no resume: the command for the rest is the same one with the seeds that come next
(`--seed-start`), so the two files together hold every episode once.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

import click
from click.core import ParameterSource

from ..output_files import is_stdout
from . import visible
from .console import stderr
from .errors import CommandError

NOT_REPEATED = {"episodes", "seed_start", "output", "force"}
"""eval's parameters the command for the rest sets itself (or drops)."""


def refuse_to_replace(output: Path | None, force: bool) -> None:
    """Stop unless `output` is new, empty or not a regular file (a pipe), or `force` is given."""
    if output is None or force or is_stdout(output):
        return
    try:
        info = os.stat(output)
    except OSError:  # new (or unreadable: opening it will say why)
        return
    if stat.S_ISREG(info.st_mode) and info.st_size > 0:
        raise CommandError(
            f"{output} exists and is not empty: eval would replace what it holds. Give -o a new "
            "file, or --force to replace it"
        )


def print_rest(
    ctx: click.Context,
    kept: int,
    rest: int,
    seed_start: int,
    dataset: Path | None,
    rollouts: int = 1,
) -> None:
    """Say how to play the `rest` episodes after the `kept` first ones (see the module); with
    `rollouts` per seed, the seeds after the last one started (whose rollouts not played are
    said, not played again: a seed's rollouts must not repeat in the two files)."""
    if rest <= 0:
        return
    if rollouts > 1:
        started = -(-kept // rollouts)  # a seed cut short is not played again
        cut = kept % rollouts
        if cut:
            which = f"row {started}" if dataset is not None else f"seed {seed_start + started - 1}"
            note = f"{which} has {cut} of its {rollouts} rollouts; the others are not played"
            stderr().print(visible.rich(note))
        rest = (kept + rest) // rollouts - started
        kept = started
        if rest <= 0:
            return
    if dataset is not None:
        note = (
            f"not played: the {rest} rows of {dataset} after its first {kept}; eval has no option "
            "to skip rows: give it a dataset of those rows to play them"
        )
        stderr().print(visible.rich(note))
        return
    output: Path | None = ctx.params.get("output")
    start = seed_start + kept
    args = ["swift-gym", "eval", *_given(ctx), "-n", str(rest), "--seed-start", str(start)]
    named = output is not None and not is_stdout(output) and _regular_or_new(output)
    later = (
        output.with_name(f"{output.stem}.from-{start}{output.suffix}")
        if named and output is not None
        else output
    )
    if later is not None:
        args += ["-o", str(later)]
    what = f"{rest} seeds" if rollouts > 1 else f"{rest} episodes"
    stderr().print(visible.rich(f"to play the other {what}: {shlex.join(args)}"))
    if named:
        both = shlex.join(["swift-gym", "replay", str(output), str(later)])
        stderr().print(visible.rich(f"then read both: {both} (or report, export)"))


def _given(ctx: click.Context) -> list[str]:
    """The arguments and options given on the command line, as they would be typed again."""
    args: list[str] = []
    for param in ctx.command.params:
        name = param.name or ""
        if name in NOT_REPEATED or ctx.get_parameter_source(name) != ParameterSource.COMMANDLINE:
            continue
        value = ctx.params[name]
        if isinstance(param, click.Argument):
            args.append(str(value))
            continue
        option = max(param.opts, key=len)
        if isinstance(param, click.Option) and param.is_flag:
            args += [option] if value else []
        elif param.multiple:
            for item in value:
                args += [option, str(item)]
        else:
            args += [option, str(value)]
    return args


def _regular_or_new(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True
