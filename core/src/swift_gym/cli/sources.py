"""Where `eval` gets its episodes: generated seeds, or the rows of a dataset file.

A dataset is checked in full before anything is played (a bad row stops the run with exit
code 1), then read a second time, lazily, as episodes are handed out.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.text import Text

from .console import stderr
from .episodes import EpisodeSpec
from .errors import EXIT_PROBLEMS, CommandError
from .rows import RowChecker, read_jsonl, resolve_name

_SHOWN_BAD_ROWS = 20


def generated(
    name: str, total: int, seed_start: int, fields: dict[str, Any]
) -> Iterator[EpisodeSpec]:
    """Episode i: env `name`, seed `seed_start + i`, and the `--set` fields."""
    for index in range(total):
        yield EpisodeSpec(index, name, {"name": name, "seed": seed_start + index, **fields})


def _row_config(row: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    return {**row.get("env_config", {}), **fields}


def check_dataset(
    dataset: Path, default_env: str | None, fields: dict[str, Any], limit: int | None
) -> tuple[int, set[str]]:
    """Rows to play and their envs, after checking every row's schema (bad rows: exit 1)."""
    from ..registry import default_registry

    if not stat.S_ISREG(dataset.stat().st_mode):
        raise CommandError(
            f"--dataset {dataset}: not a regular file; eval reads its rows twice (to check them "
            "all, then to play them), so save a pipe's rows to a file first"
        )
    count = bad = 0
    envs: set[str] = set()
    with RowChecker(default_registry(), default_env, build=False) as checker:
        for line in read_jsonl(dataset):
            if limit is not None and count >= limit:
                break
            count += 1
            if line.row is None:
                problems = [line.error]
            else:
                check = checker.check_row(line.row, fields)
                envs.add(check.env)
                problems = [str(problem) for problem in check.problems]
                if check.omitted:
                    problems.append(f"and {check.omitted} more problems in this row")
            if problems:
                bad += 1
                if bad <= _SHOWN_BAD_ROWS:
                    for problem in problems:
                        stderr().print(
                            Text.assemble((f"{dataset}, line {line.number}: ", "red"), str(problem))
                        )
    if bad:
        stderr().print(
            Text.assemble(
                (f"{bad} bad row{'s' * (bad != 1)}", "bold red"),
                f" in {dataset}; nothing was played. See them all with: swift-gym validate "
                f"{dataset}",
            )
        )
        raise SystemExit(EXIT_PROBLEMS)
    if not count:
        raise CommandError(f"{dataset} has no rows")
    return count, envs


def from_dataset(
    dataset: Path, default_env: str | None, fields: dict[str, Any], total: int
) -> Iterator[EpisodeSpec]:
    """Episode i: row i of `dataset` (rows already checked by `check_dataset`)."""
    for index, line in enumerate(read_jsonl(dataset)):
        if index >= total or line.row is None:
            return
        env_config = _row_config(line.row, fields)
        yield EpisodeSpec(index, str(resolve_name(env_config, default_env)), env_config)
