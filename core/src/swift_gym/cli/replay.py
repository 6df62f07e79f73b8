"""`swift-gym replay`: read recorded episodes turn by turn, to see why a reward was 0.

It reads files from `swift-gym eval -o` and the directories training fills
(SWIFT_GYM_TRAJECTORIES: one file per process, each record with its place in training, see
`evaluation.training`). Files are read in name order and each file's episodes in the order it
holds them (its process's order of play), streamed, not sorted by training time: a training
directory can hold gigabytes, a process's episodes stay together as it played them, and
`--step` picks a moment of training.

Everything shown comes from the files (the model's replies, the env's texts and infos, the
file names), so it is made visible, never obeyed: see `visible`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from ..evaluation.training import StepRange, TrainingPlace, parse_step_range, training_place
from . import visible
from .console import cells, stdout
from .errors import CommandError, NothingFoundError
from .streamed_table import StreamedTable
from .trajectories import read_trajectories, trajectory_files
from .transcript import (
    call_lines,
    note,
    number,
    plural,
    result_sections,
    section,
    step_note,
    tools_section,
)

_NAMES_SHOWN = 5
"""Envs named in the error when `--env` matches none."""


def _process(place: TrainingPlace) -> str:
    """The process that played it: its rank, else its host and pid."""
    if place.rank is not None:
        return f"rank {place.rank}"
    host = visible.brief(place.host, 64) if place.host is not None else "host ?"
    return f"{host} pid {place.pid if place.pid is not None else '?'}"


def headline(record: dict[str, Any], file: Path | None = None) -> str:
    """One line about an episode: which, how it ended, in how many turns, for what reward;
    for a training episode (and with `file`) also where: `(step 12, rank 0, FILE)`."""
    where: list[str] = []
    place = training_place(record)
    if place is not None:
        where.append(f"step {place.step}" if place.step is not None else "no step")
        where.append(_process(place))
    if file is not None:
        where.append(visible.brief(file.name, 120))
    return (
        f"episode {visible.brief(record.get('index'))}"
        f"{' (' + ', '.join(where) + ')' if where else ''}: {visible.brief(record.get('env'))} "
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
        self._last_prompt: tuple[Any, Any, Path | None] | None = None  # prompt, index, file

    def show(self, record: dict[str, Any], file: Path | None = None) -> None:
        """The whole episode as the model lived it, with what the env made of each reply;
        `file`: the file it came from, named in the headline (several files, or training)."""
        out = stdout()
        out.rule(characters="═", style="magenta")
        out.print(visible.rich(headline(record, file), style="bold magenta"))
        out.print(visible.rich(f"env_config: {_config_line(record.get('env_config'))}", "dim"))
        if record.get("error"):
            error = visible.rich(visible.brief(record["error"], 2000))
            out.print(Text.assemble(("error: ", "bold red"), error))
        prompt = record.get("system_prompt")
        if prompt:
            if self._last_prompt is not None and self._last_prompt[0] == prompt:
                _, index, before = self._last_prompt
                where = "" if before == file else f" of {visible.brief(before.name, 120)}"
                note(f"(same system prompt as episode {visible.brief(index)}{where})")
            else:
                section("system", prompt)
                self._last_prompt = (prompt, record.get("index"), file)
        else:
            self._last_prompt = None
        if record.get("tools") is not None:
            tools_section(record["tools"])
        if record.get("observation") is not None:
            section("user", record["observation"])
        for turn in record["turns"]:
            turn = turn if isinstance(turn, dict) else {"reply": turn}
            info = turn.get("info")
            section(f"assistant (turn {visible.brief(turn.get('turn'))})", turn.get("reply"))
            call_lines(turn.get("tool_calls"))
            step_note(
                turn.get("reward"),
                turn.get("done"),
                turn.get("action"),
                info if isinstance(info, dict) else {} if info is None else {"info": info},
            )
            result_sections(turn.get("tool_results"))
            if turn.get("observation") != "" or record.get("tools") is None:
                # in a tool episode an empty observation is no message: the model saw none
                section("user", turn.get("observation"))


@dataclass(frozen=True)
class Wanted:
    """The episodes the options ask for (None: any)."""

    env: str | None = None
    steps: StepRange | None = None
    index: int | None = None
    status: str | None = None

    def __bool__(self) -> bool:
        return any(value is not None for value in (self.env, self.steps, self.index, self.status))

    def matches(self, record: dict[str, Any], place: TrainingPlace | None) -> bool:
        if self.env is not None and record.get("env") != self.env:
            return False
        if self.steps is not None and (place is None or place.step not in self.steps):
            return False
        if self.index is not None and record.get("index") != self.index:
            return False
        return self.status is None or record.get("status") == self.status

    def __str__(self) -> str:
        parts = (
            f"env {visible.plain(repr(self.env))}" if self.env is not None else "",
            str(self.steps) if self.steps is not None else "",
            f"index {self.index}" if self.index is not None else "",
            f"status {visible.plain(repr(self.status))}" if self.status is not None else "",
        )
        return " and ".join(part for part in parts if part)


class Seen:
    """What the files held, for an error that says why nothing matched."""

    def __init__(self) -> None:
        self.total = 0
        self.envs: Counter[str] = Counter()
        self.low: int | None = None  # the lowest known step
        self.high: int | None = None

    def add(self, record: dict[str, Any], place: TrainingPlace | None) -> None:
        self.total += 1
        self.envs[visible.brief(record.get("env"), 40)] += 1
        step = place.step if place is not None else None
        if step is not None:
            self.low = step if self.low is None else min(self.low, step)
            self.high = step if self.high is None else max(self.high, step)

    def hints(self, wanted: Wanted) -> str:
        said: list[str] = []
        if wanted.steps is not None:
            if self.low is not None:
                span = f"{self.low} to {self.high}" if self.low != self.high else f"{self.low}"
                said.append(f"the steps recorded are {span}")
            else:
                said.append(
                    "none of them records a training step (episodes from swift-gym eval have "
                    "none; a swift rollout worker is never told it)"
                )
        if wanted.env is not None and wanted.env not in self.envs:
            names = [name for name, _ in self.envs.most_common(_NAMES_SHOWN)]
            more = len(self.envs) - len(names)
            said.append(
                "their envs are " + ", ".join(names) + (f" and {more} more" if more > 0 else "")
            )
        return "".join(f"; {text}" for text in said)


def _where(paths: tuple[Path, ...], files: list[Path]) -> str:
    named = ", ".join(str(path) for path in paths[:3])
    if len(paths) > 3:
        named += f" and {len(paths) - 3} more"
    return named if len(files) == 1 else f"{named} ({len(files)} files)"


def _step_range(_ctx: click.Context, _param: click.Parameter, text: str | None) -> Any:
    if text is None:
        return None
    try:
        return parse_step_range(text)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@click.command()
@click.argument(
    "trajectories", nargs=-1, required=True,
    type=click.Path(exists=True, readable=True, allow_dash=True, path_type=Path),
)  # fmt: skip
@click.option("--env", "env", metavar="NAME", help="Show only episodes of this env.")
@click.option(
    "--step", "steps", metavar="N|FIRST:LAST", callback=_step_range,
    help="Show only training episodes that ended at step N, or in a range: 10:20 (both "
    "included), 10: (and later), :20 (up to 20).",
)  # fmt: skip
@click.option(
    "--index", type=click.IntRange(min=0),
    help="Show only the episode with this index; with several files, the one in each file "
    "that has it (a training file's index counts its own process's episodes).",
)  # fmt: skip
@click.option("--status", help="Show only episodes that ended with this status (goal, error...).")
@click.option(
    "--list", "as_list", is_flag=True,
    help="One line per episode, no turns, each printed as it is read.",
)  # fmt: skip
def replay(
    trajectories: tuple[Path, ...],
    env: str | None,
    steps: StepRange | None,
    index: int | None,
    status: str | None,
    as_list: bool,
) -> None:
    """Show recorded episodes turn by turn: TRAJECTORIES are files from `swift-gym eval -o`,
    directories training filled (SWIFT_GYM_TRAJECTORIES), or '-' for stdin.

    Files are read in name order, each file's episodes in its own order (for training, the
    order its process played them). A training episode's headline says its step, its process
    (rank, else host and pid) and its file. A system prompt the episode before showed is not
    repeated. Control characters, escape sequences and invisible characters in the files are
    shown escaped (\\x1b, \\u202e).
    """
    wanted = Wanted(env, steps, index, status)
    files = trajectory_files(trajectories)
    several = len(files) > 1
    view = EpisodeView()
    listing = Listing(several)
    seen = Seen()
    shown = 0
    try:
        for path in files:
            for record in read_trajectories(path):
                place = training_place(record)
                seen.add(record, place)
                if not wanted.matches(record, place):
                    continue
                shown += 1
                if as_list:
                    listing.add(record, place, path)
                else:
                    view.show(record, path if several or place is not None else None)
    finally:
        listing.close()
    if shown:
        return
    where = _where(trajectories, files)
    if not wanted:
        raise CommandError(f"{where} holds no episodes")
    raise NothingFoundError(
        f"no episode with {wanted} among the {seen.total} in {where}{seen.hints(wanted)}"
    )


class Listing:
    """`--list`: one line per episode, printed as it is read (see `streamed_table`). Step and
    process columns come with the first training episode: a listing that starts with episodes
    from `swift-gym eval` and reaches training ones starts a new table with them; file columns
    when there is training or more than one file to tell apart."""

    def __init__(self, several: bool):
        self.several = several
        self.training = False
        self._table: StreamedTable | None = None

    def add(self, record: dict[str, Any], place: TrainingPlace | None, path: Path) -> None:
        if self._table is None or (place is not None and not self.training):
            self.training = place is not None
            columns = _columns(self.training, self.training or self.several)
            if self._table is None:
                self._table = StreamedTable(stdout(), columns)
            else:
                self._table.restart(columns)
        where: list[Any] = []
        if self.training:
            if place is None:
                where = [None, None]
            else:
                where = [place.step if place.step is not None else "none", _process(place)]
        values = [record.get("index"), *where, record.get("env"), record.get("seed")]
        values += [record.get("status"), record.get("num_turns"), record.get("total_reward")]
        values += [path.name] if self.training or self.several else []
        self._table.add_row(cells(*values, record.get("error")))

    def close(self) -> None:
        if self._table is not None:
            self._table.close()


def _columns(training: bool, named: bool) -> list[tuple[str, int, int]]:
    """The listing's headings, each with its share of the width and the most it takes."""
    return [
        ("index", 1, 8), *([("step", 1, 10), ("process", 2, 24)] if training else []),
        ("env", 3, 30), ("seed", 1, 12), ("status", 2, 16), ("turns", 1, 6), ("reward", 2, 12),
        *([("file", 5, 44)] if named else []), ("error", 4, 80),
    ]  # fmt: skip
