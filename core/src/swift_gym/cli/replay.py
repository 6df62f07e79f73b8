"""`swift-gym replay`: read recorded episodes turn by turn, to see why a reward was 0.

Everything shown comes from the file (the model's replies, the env's texts and infos), so it is
made visible, never obeyed: see `visible`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from . import visible
from .console import cells, stdout
from .errors import CommandError
from .trajectories import read_trajectories
from .transcript import note, number, plural, section, step_note


def headline(record: dict[str, Any]) -> str:
    """One line about an episode: which, how it ended, in how many turns, for what reward."""
    return (
        f"episode {visible.brief(record.get('index'))}: {visible.brief(record.get('env'))} "
        f"seed {visible.brief(record.get('seed'))}, policy {visible.brief(record.get('policy'))}: "
        f"{visible.brief(record.get('status'))} after {plural(record.get('num_turns'), 'turn')}, "
        f"total reward {number(record.get('total_reward'))}"
    )


def _config_line(config: Any) -> str:
    try:
        return json.dumps(config)  # ASCII only: every control and surrogate comes out escaped
    except (TypeError, ValueError, RecursionError):
        return visible.brief(config, 1000)


class EpisodeView:
    """Shows episodes one after another; a system prompt the one before showed is not repeated."""

    def __init__(self) -> None:
        self._last_prompt: tuple[Any, Any] | None = None  # (prompt, index of the episode shown)

    def show(self, record: dict[str, Any]) -> None:
        """The whole episode as the model lived it, with what the env made of each reply."""
        out = stdout()
        out.rule(characters="═", style="magenta")
        out.print(visible.rich(headline(record), style="bold magenta"))
        out.print(visible.rich(f"env_config: {_config_line(record.get('env_config'))}", "dim"))
        if record.get("error"):
            error = visible.rich(visible.brief(record["error"], 2000))
            out.print(Text.assemble(("error: ", "bold red"), error))
        prompt = record.get("system_prompt")
        if prompt:
            if self._last_prompt is not None and self._last_prompt[0] == prompt:
                note(f"(same system prompt as episode {visible.brief(self._last_prompt[1])})")
            else:
                section("system", prompt)
                self._last_prompt = (prompt, record.get("index"))
        else:
            self._last_prompt = None
        if record.get("observation") is not None:
            section("user", record["observation"])
        for turn in record["turns"]:
            turn = turn if isinstance(turn, dict) else {"reply": turn}
            info = turn.get("info")
            section(f"assistant (turn {visible.brief(turn.get('turn'))})", turn.get("reply"))
            step_note(
                turn.get("reward"),
                turn.get("done"),
                turn.get("action"),
                info if isinstance(info, dict) else {} if info is None else {"info": info},
            )
            section("user", turn.get("observation"))


@click.command()
@click.argument("trajectories", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--index", type=click.IntRange(min=0), help="Show only the episode with this index.")
@click.option("--status", help="Show only episodes that ended with this status (goal, error...).")
@click.option("--list", "as_list", is_flag=True, help="One line per episode, no turns.")
def replay(trajectories: Path, index: int | None, status: str | None, as_list: bool) -> None:
    """Show the episodes recorded by `swift-gym eval -o TRAJECTORIES` turn by turn.

    A system prompt the episode before showed is not repeated. Control characters, escape
    sequences and invisible characters in the file are shown escaped (\\x1b, \\u202e).
    """
    table = Table("index", "env", "seed", "status", "turns", "reward", "error")
    view = EpisodeView()
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
            view.show(record)
    if as_list and shown:
        stdout().print(table)
    if not shown:
        wanted = " and ".join(
            part
            for part in (
                f"index {index}" if index is not None else "",
                f"status {visible.plain(repr(status))}" if status is not None else "",
            )
            if part
        )
        raise CommandError(
            f"no episode with {wanted} among the {total} in {trajectories}"
            if wanted
            else f"{trajectories} holds no episodes"
        )
