"""`swift-gym replay`: read recorded episodes turn by turn, to see why a reward was 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from .console import cells, stdout
from .errors import CommandError
from .trajectories import read_trajectories
from .transcript import section, step_note


def headline(record: dict[str, Any]) -> str:
    """One line about an episode: which, how it ended, in how many turns, for what reward."""
    return (
        f"episode {record.get('index')}: {record.get('env')} seed {record.get('seed')}, "
        f"policy {record.get('policy')}: {record.get('status')} after {record.get('num_turns')} "
        f"turns, total reward {record.get('total_reward')}"
    )


def show_episode(record: dict[str, Any]) -> None:
    """The whole episode as the model lived it, with what the env made of each reply."""
    out = stdout()
    out.rule(Text(f"episode {record.get('index')}", style="bold magenta"), align="left")
    out.print(Text(headline(record), style="bold"))
    out.print(Text(f"env_config: {json.dumps(record.get('env_config'))}", style="dim"))
    if record.get("error"):
        out.print(Text.assemble(("error: ", "bold red"), str(record["error"])))
    if record.get("system_prompt"):
        section("system", record["system_prompt"])
    if record.get("observation") is not None:
        section("user", record["observation"])
    for turn in record["turns"]:
        section(f"assistant (turn {turn.get('turn')})", turn.get("reply"))
        step_note(turn.get("reward"), turn.get("done"), turn.get("action"), turn.get("info") or {})
        section("user", turn.get("observation"))


@click.command()
@click.argument("trajectories", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--index", type=click.IntRange(min=0), help="Show only the episode with this index.")
@click.option("--status", help="Show only episodes that ended with this status (goal, error...).")
@click.option("--list", "as_list", is_flag=True, help="One line per episode, no turns.")
def replay(trajectories: Path, index: int | None, status: str | None, as_list: bool) -> None:
    """Show the episodes recorded by `swift-gym eval -o TRAJECTORIES` turn by turn."""
    table = Table("index", "env", "seed", "status", "turns", "reward", "error")
    shown = total = 0
    for record in read_trajectories(trajectories):
        total += 1
        if index is not None and record.get("index") != index:
            continue
        if status is not None and record.get("status") != status:
            continue
        shown += 1
        if as_list:
            keys = ("index", "env", "seed", "status", "num_turns", "total_reward", "error")
            table.add_row(*cells(*(record.get(key) for key in keys)))
        else:
            show_episode(record)
    if as_list and shown:
        stdout().print(table)
    if not shown:
        wanted = " and ".join(
            part
            for part in (
                f"index {index}" if index is not None else "",
                f"status {status!r}" if status is not None else "",
            )
            if part
        )
        raise CommandError(
            f"no episode with {wanted} among the {total} in {trajectories}"
            if wanted
            else f"{trajectories} holds no episodes"
        )
