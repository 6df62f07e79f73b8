"""`swift-gym export`: recorded episodes as a `swift sft` dataset (see `evaluation.sft`).

What the file holds came from a model and an env: shown escaped in warnings, written exactly.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from ..evaluation.sft import ExportCounts, Selection, sft_lines
from ..output_files import describe, open_output
from . import visible
from .console import stderr
from .errors import CommandError, NothingFoundError
from .trajectories import read_trajectories, trajectory_files
from .transcript import plural

_SHOWN_PROBLEMS = 20


@click.command()
@click.argument(
    "trajectories", nargs=-1, required=True,
    type=click.Path(exists=True, readable=True, allow_dash=True, path_type=Path),
)  # fmt: skip
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    default="-", show_default=True,
    help="JSONL file to write ('-': stdout), whole or not at all.",
)  # fmt: skip
@click.option(
    "--status", "statuses", multiple=True, metavar="STATUS",
    help="Only episodes that ended with this status (repeatable): goal, done, max_turns...",
)  # fmt: skip
@click.option("--min-reward", type=float, help="Only episodes with at least this total reward.")
@click.option("--successful", is_flag=True, help="Only episodes whose record says success.")
def export(
    trajectories: tuple[Path, ...],
    output: Path,
    statuses: tuple[str, ...],
    min_reward: float | None,
    successful: bool,
) -> None:
    """Write the episodes of TRAJECTORIES (files from `swift-gym eval -o`, directories of
    training trajectories, or '-' for stdin) as a `swift sft` dataset: one {"messages": [...]}
    row per episode, the system prompt, observations and replies exactly as the model was
    shown them, ending with its last reply.

    A tool episode becomes a row of ms-swift's agent format: {"tools": "[...]", "messages":
    [...]} with tool_call and tool_response messages (train with --agent_template).

    Failed episodes (status error) and episodes never played are never exported. Says on
    stderr how many rows were written and how many episodes were skipped, and why.

    Then: swift sft --model MODEL --dataset sft.jsonl ...
    """
    try:
        selection = Selection(statuses or None, min_reward, successful)
    except ValueError as error:
        raise CommandError(str(error)) from None
    files = trajectory_files(trajectories, output)
    counts = ExportCounts()
    try:
        with open_output(output) as file:
            for path in files:
                warn = partial(_warn, path, counts)
                for line in sft_lines(read_trajectories(path), selection, counts, warn):
                    file.write(line + "\n")
            if not counts.written:
                why = f": {counts.summary()}" if counts.skipped else ""
                raise NothingFoundError(
                    f"no episode to export from {plural(counts.episodes, 'episode')}{why}"
                )
    except KeyboardInterrupt:
        note = visible.rich(f"wrote nothing to {describe(output)}")
        stderr().print(Text.assemble(("interrupted: ", "bold red"), note))
        raise
    except OSError as error:  # the disk filled up, the FIFO's reader left...
        raise CommandError(f"cannot write {output}: {error.strerror or error}") from None
    if counts.problems > _SHOWN_PROBLEMS:
        stderr().print(
            Text(f"skipped {counts.problems} records in all that hold no chat", "yellow")
        )
    text = (
        f"wrote {plural(counts.written, 'row')} to {describe(output)} "
        f"from {plural(counts.episodes, 'episode')}"
    )
    if counts.skipped:
        text += f"; skipped {sum(counts.skipped.values())}: {counts.summary()}"
    stderr().print(visible.rich(text))


def _warn(path: Path, counts: ExportCounts, record: dict[str, Any], problem: Exception) -> None:
    if counts.problems > _SHOWN_PROBLEMS:
        return
    where = f"{path}, episode {visible.brief(record.get('index'))}: {problem}"
    stderr().print(Text.assemble(("skipped: ", "bold yellow"), visible.rich(where)))
