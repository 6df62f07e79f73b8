"""`swift-gym dataset`: write a training dataset of env rows in ms-swift's format.

Row i gets seed `seed_start + i`, whatever its env, so a dataset is a pure function of its
arguments and any row can be rebuilt from its line number. Rows are made, checked and written
one at a time, so memory does not grow with `-n`; the file appears only once every row is good.
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from ..config import SEED_MAX
from ..json_text import dumps
from ..output_files import describe, open_output
from ..plugins import Terminated, describe_error
from ..rows import RowChecker
from ..tools.for_rows import RowTools
from .console import stderr
from .envs import check_base_config
from .errors import EXIT_INTERRUPTED, EXIT_PROBLEMS, CommandError
from .mix import parse_mix, row_envs
from .options import parse_overrides, set_option
from .progress import progress_bar

PLACEHOLDER = "<placeholder>"
"""The user message of each row: ms-swift's gym scheduler replaces it with the env's reset."""
RESERVED = {
    "name": "the env is the NAME argument (or --mix)",
    "seed": "row i gets seed --seed-start + i; use --seed-start",
}


REMOTE_ENV = "openenv"
"""The env that plays an env served on another machine (`swift_gym.remote`)."""
REMOTE_RESERVED = {
    "token_env": "a row cannot choose which secret is sent, nor where. Where the rows are "
    "played, the operator names each server's token variable: "
    "SWIFT_GYM_OPENENV_TOKENS=host[:port]=VARIABLE,...",
}
"""Refused with --remote too (the fields would go to the served env's config)."""


def dataset_row(env_config: dict[str, Any], tools: str | None = None) -> dict[str, Any]:
    """One ms-swift row: a placeholder user message and the env_config, and the `tools` (JSON
    text) of an env that offers tools, which ms-swift's agent template renders."""
    row: dict[str, Any] = {"messages": [{"role": "user", "content": PLACEHOLDER}]}
    if tools is not None:
        row["tools"] = tools
    row["env_config"] = env_config
    return row


def remote_config(env_config: dict[str, Any], urls: tuple[str, ...]) -> dict[str, Any]:
    """The `openenv` row that plays `env_config` on the server at `urls` (several: a pool)."""
    return {
        "name": REMOTE_ENV,
        "seed": env_config["seed"],
        "base_url": urls[0] if len(urls) == 1 else list(urls),
        "env_config": env_config,
    }


def _installed(registry: Any, name: str) -> bool:
    from ..errors import UnknownEnvError

    try:
        registry.resolve(name)
    except UnknownEnvError:
        return False
    return True


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
    default="-", show_default=True,
    help="Output JSONL file ('-': stdout), written whole or not at all; a FIFO or a device is "
    "written through.",
)  # fmt: skip
@click.option(
    "--build/--no-build", default=True, show_default=True,
    help="Build each row's env to check it (FrozenLake: its map is solvable).",
)  # fmt: skip
@click.option(
    "--remote", "remote", multiple=True, metavar="URL",
    help="Rows that play the env on the `swift-gym serve` (or other OpenEnv) server at URL, "
    "through the openenv env; repeat for a pool of servers. Envs installed here are checked "
    "here too. Rows carry no token: where they are played, SWIFT_GYM_OPENENV_TOKENS says which "
    "server gets which.",
)  # fmt: skip
def dataset(
    name: str | None,
    count: int,
    seed_start: int,
    overrides: tuple[str, ...],
    mix: str | None,
    output: Path,
    build: bool,
    remote: tuple[str, ...],
) -> None:
    """Write -n rows for env NAME (or the envs of --mix) in ms-swift's dataset format.

    Each row is {"messages": [{"role": "user", "content": "<placeholder>"}], "env_config":
    {"name": NAME, "seed": S, ...--set fields}}. A row of an env that offers tools also gets
    "tools": the env's tools after its reset, as the JSON text `--agent_template` renders (the
    prompt ms-swift trains on must hold them). Every row is validated; if any is bad nothing
    is written and the exit code is 1. With --remote URL, each row's env_config is
    {"name": "openenv", "seed": S, "base_url": URL, "env_config": {"name": NAME, "seed": S,
    ...}}: the env is played on that server.
    """
    from ..registry import default_registry

    if (name is None) == (mix is None):
        raise CommandError("give an env NAME or --mix NAME:WEIGHT,..., not both or neither")
    fields = parse_overrides(overrides, {**RESERVED, **REMOTE_RESERVED} if remote else RESERVED)
    last = seed_start + count - 1
    if last > SEED_MAX:
        raise CommandError(
            f"-n {count} rows from --seed-start {seed_start} would need seeds up to {last}, "
            f"past the largest seed {SEED_MAX} (2**64-1)"
        )
    weights = parse_mix(mix) if mix else [(str(name), 1.0)]
    registry = default_registry()
    unchecked = {env for env, _ in weights if remote and not _installed(registry, env)}
    for env, _ in weights:
        if env not in unchecked:
            check_base_config(env, {"seed": seed_start, **fields})
    if remote:
        check_base_config(REMOTE_ENV, remote_config({"name": name, "seed": seed_start}, remote))
    for env in sorted(unchecked):
        stderr().print(
            Text(f"{env} is not installed here: its rows are checked by the server at reset")
        )
    envs = row_envs(weights, count, seed_start) if mix else itertools.repeat(str(name), count)

    per_env: Counter[str] = Counter()
    bad = 0
    try:
        with (
            open_output(output) as file,
            RowChecker(registry, build=build) as checker,
            RowTools(registry) as row_tools,
            progress_bar("rows") as bar,
        ):
            task = bar.add_task("writing rows", total=count)
            for index, env in enumerate(envs):
                env_config = {"name": env, "seed": seed_start + index, **fields}
                check = None if env in unchecked else checker.check(env_config)
                problems = [str(p) for p in check.problems] if check is not None else []
                tools = None
                if not problems and env not in unchecked and not remote:
                    try:
                        tools = row_tools.tools_text(env_config)
                    except Terminated:
                        raise
                    except (Exception, SystemExit) as error:  # a plugin's sys.exit() too
                        problems.append(f"reading its tools after reset: {describe_error(error)}")
                if remote:
                    env_config = remote_config(env_config, remote)
                if problems:
                    bad += 1
                    head = f"row {index} ({env}, seed {seed_start + index}): "
                    for problem in problems:
                        stderr().print(Text.assemble((head, "bold red"), problem))
                file.write(dumps(dataset_row(env_config, tools)) + "\n")
                per_env[env] += 1
                bar.advance(task)
            if bad:
                stderr().print(
                    f"[bold red]FAILED:[/] {bad} of {count} rows are invalid; wrote nothing"
                )
                raise SystemExit(EXIT_PROBLEMS)
    except KeyboardInterrupt:
        stderr().print(f"[bold red]interrupted:[/] wrote nothing to {describe(output)}")
        raise SystemExit(EXIT_INTERRUPTED) from None
    except BrokenPipeError:  # stdout's reader has gone: the command ends quietly (`app`)
        raise
    except OSError as error:  # the disk filled up, the FIFO's reader left...
        raise CommandError(f"cannot write {output}: {error.strerror or error}") from None
    envs_text = ", ".join(f"{env}: {rows}" for env, rows in sorted(per_env.items()))
    stderr().print(
        Text(f"wrote {count} rows to {describe(output)} ({envs_text}; seeds {seed_start}..{last})")
    )
