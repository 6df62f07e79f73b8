"""`swift-gym dataset`: write a training dataset of env rows in ms-swift's format.

Row i gets seed `seed_start + i`, whatever its env, so a dataset is a pure function of its
arguments and any row can be rebuilt from its line number.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from .console import stderr, stdout
from .envs import check_base_config
from .errors import EXIT_PROBLEMS, CommandError
from .mix import parse_mix, row_envs
from .options import parse_overrides, set_option
from .progress import progress_bar
from .rows import RowChecker

PLACEHOLDER = "<placeholder>"
"""The user message of each row: ms-swift's gym scheduler replaces it with the env's reset."""
RESERVED = {
    "name": "the env is the NAME argument (or --mix)",
    "seed": "row i gets seed --seed-start + i; use --seed-start",
}


def dataset_row(env_config: dict[str, Any]) -> dict[str, Any]:
    """One ms-swift row: a placeholder user message and the env_config."""
    return {"messages": [{"role": "user", "content": PLACEHOLDER}], "env_config": env_config}


@click.command()
@click.argument("name", required=False)
@click.option(
    "-n", "--rows", "count", type=click.IntRange(min=1), default=1024, show_default=True,
    help="Number of rows.",
)  # fmt: skip
@click.option(
    "--seed-start", type=click.IntRange(min=0), default=0, show_default=True,
    help="Seed of the first row; row i gets seed-start + i. Also seeds the --mix order.",
)  # fmt: skip
@set_option
@click.option(
    "--mix", metavar="NAME:WEIGHT,...",
    help="Several envs in one file, rows split by weight (exact counts, shuffled by seed).",
)  # fmt: skip
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    default="-", show_default=True, help="Output JSONL file; '-' writes to stdout.",
)  # fmt: skip
@click.option(
    "--build/--no-build", default=True, show_default=True,
    help="Build each row's env to check it (FrozenLake: its map is solvable).",
)  # fmt: skip
def dataset(
    name: str | None,
    count: int,
    seed_start: int,
    overrides: tuple[str, ...],
    mix: str | None,
    output: Path,
    build: bool,
) -> None:
    """Write -n rows for env NAME (or the envs of --mix) in ms-swift's dataset format.

    Each row is {"messages": [{"role": "user", "content": "<placeholder>"}], "env_config":
    {"name": NAME, "seed": S, ...--set fields}}. Every row is validated; if any is bad nothing
    is written and the exit code is 1.
    """
    from ..registry import default_registry

    if (name is None) == (mix is None):
        raise CommandError("give an env NAME or --mix NAME:WEIGHT,..., not both or neither")
    fields = parse_overrides(overrides, RESERVED)
    weights = parse_mix(mix) if mix else [(str(name), 1.0)]
    for env, _ in weights:
        check_base_config(env, {"seed": seed_start, **fields})
    envs = row_envs(weights, count, seed_start) if mix else [str(name)] * count

    per_env: Counter[str] = Counter()
    bad = 0
    directory = output.parent if str(output) != "-" else Path(tempfile.gettempdir())
    if not directory.is_dir():
        raise CommandError(f"cannot write {output}: directory {directory} does not exist")
    handle, temp_name = tempfile.mkstemp(prefix=".swift-gym-", suffix=".jsonl", dir=directory)
    temp = Path(temp_name)
    try:
        with (
            os.fdopen(handle, "w", encoding="utf-8") as file,
            RowChecker(default_registry(), build=build) as checker,
            progress_bar() as bar,
        ):
            task = bar.add_task("writing rows", total=count)
            for index, env in enumerate(envs):
                env_config = {"name": env, "seed": seed_start + index, **fields}
                check = checker.check(env_config)
                if not check.ok:
                    bad += 1
                    for problem in check.problems:
                        head = f"row {index} ({env}, seed {seed_start + index}): "
                        stderr().print(Text.assemble((head, "bold red"), str(problem)))
                file.write(json.dumps(dataset_row(env_config), ensure_ascii=False) + "\n")
                per_env[env] += 1
                bar.advance(task)
        if bad:
            stderr().print(f"[bold red]FAILED:[/] {bad} of {count} rows are invalid; wrote nothing")
            raise SystemExit(EXIT_PROBLEMS)
        if str(output) == "-":
            with temp.open("rb") as file:
                stdout().file.flush()
                for chunk in iter(lambda: file.read(1 << 16), b""):
                    sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
        else:
            os.replace(temp, output)
    finally:
        temp.unlink(missing_ok=True)
    where = "stdout" if str(output) == "-" else str(output)
    envs_text = ", ".join(f"{env}: {rows}" for env, rows in sorted(per_env.items()))
    last = seed_start + count - 1
    stderr().print(Text(f"wrote {count} rows to {where} ({envs_text}; seeds {seed_start}..{last})"))
