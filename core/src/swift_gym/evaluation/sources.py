"""Where a run's episodes come from: env configs played from generated seeds, or dataset rows.

- Configs (`evaluate(env=...)`: a name, a config, or a list of them): episode i of config k has
  seed `seed_start + i`, so every config plays the same seeds (paired comparisons); the configs
  take turns (index `i * len(configs) + k`), so a run stopped early has played each about as
  often.
- With `rollouts` per seed, each such episode is played that many times in a row (`task` its
  number above, `rollout` which time: index `task * rollouts + rollout`), so a run stopped
  early has every rollout of the seeds before the last it started.
- Rows (`evaluate(dataset=...)`: a JSONL file, or the rows themselves): row i is episode i, its
  `env_config` as ms-swift reads it, with the caller's fields set over it. Every row is checked
  before anything is played (`BadRowsError` names each bad one by line), then a file is read a
  second time, lazily, as episodes are handed out.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..rows import Line, RowChecker, read_jsonl, resolve_name
from .episodes import EpisodeSpec
from .errors import SHOWN_ROWS, BadRowsError, DatasetError, EvaluationError

Rows = Path | str | Iterable[Mapping[str, Any]]
"""A dataset: a JSONL file's path, or its rows (dicts with an `env_config`)."""


def configs_of(env: Any) -> list[dict[str, Any]]:
    """`evaluate(env=...)` as a list of configs, each with its env's `name`."""
    if isinstance(env, str):
        return [{"name": env}]
    items = [env] if isinstance(env, Mapping) else env
    if not isinstance(items, Sequence) or not items:
        raise EvaluationError(
            f"env {type(env).__name__}: give an env name, a config dict with its 'name', or a "
            "list of config dicts"
        )
    configs = []
    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise EvaluationError(f"env config {item!r:.80}: a dict with the env's 'name'")
        if "seed" in item:
            raise EvaluationError(
                f"env config {dict(item)!r:.80} sets 'seed': episode i gets seed seed_start + i "
                "(to play given seeds, pass them as dataset rows)"
            )
        configs.append(dict(item))
    return configs


def generated(
    configs: Sequence[dict[str, Any]], episodes: int, seed_start: int, rollouts: int = 1
) -> Iterator[EpisodeSpec]:
    """Episode i of each config, seed `seed_start + i` (see the module docstring), each
    `rollouts` times in a row."""
    task = 0
    for offset in range(episodes):
        for config in configs:
            env_config = {**config, "seed": seed_start + offset}
            yield from _rollouts(task, config["name"], env_config, rollouts)
            task += 1


def _rollouts(
    task: int, env: str, env_config: dict[str, Any], rollouts: int
) -> Iterator[EpisodeSpec]:
    """Episode `task`, or its `rollouts` rollouts (indices `task * rollouts + r`)."""
    if rollouts == 1:
        yield EpisodeSpec(task, env, env_config)
        return
    for rollout in range(rollouts):
        yield EpisodeSpec(task * rollouts + rollout, env, dict(env_config), task, rollout)


def _lines(dataset: Rows) -> Iterator[Line]:
    if isinstance(dataset, (str, Path)):
        yield from read_jsonl(Path(dataset))
        return
    for number, row in enumerate(dataset, 1):
        if isinstance(row, Mapping):
            yield Line(number, 0, dict(row))
        else:
            yield Line(number, 0, None, f"a row must be a dict, got {type(row).__name__}")


def _label(dataset: Rows) -> str:
    return str(dataset) if isinstance(dataset, (str, Path)) else "the dataset rows"


def check_dataset(
    dataset: Rows, default_env: str | None, fields: dict[str, Any], limit: int | None
) -> tuple[int, set[str]]:
    """Rows to play and their envs, after checking every row's schema."""
    from ..registry import default_registry

    if isinstance(dataset, (str, Path)):
        path = Path(dataset)
        try:
            regular = stat.S_ISREG(path.stat().st_mode)
        except OSError as error:
            raise DatasetError(f"dataset {path}: {error.strerror or error}") from None
        if not regular:
            raise DatasetError(
                f"dataset {path}: not a regular file; it is read twice (to check every row, "
                "then to play them), so save a pipe's rows to a file first"
            )
    count = 0
    bad: list[tuple[int, str]] = []
    bad_rows = 0
    envs: set[str] = set()
    with RowChecker(default_registry(), default_env, build=False) as checker:
        for line in _lines(dataset):
            if limit is not None and count >= limit:
                break
            count += 1
            if line.row is None:
                problems = [str(line.error)]
            else:
                check = checker.check_row(line.row, fields)
                envs.add(check.env)
                problems = [str(problem) for problem in check.problems]
                if check.omitted:
                    problems.append(f"and {check.omitted} more problems in this row")
            if problems:
                bad_rows += 1
                if bad_rows <= SHOWN_ROWS:
                    bad.extend((line.number, problem) for problem in problems)
    if bad_rows:
        raise BadRowsError(_label(dataset), bad, bad_rows)
    if not count:
        raise DatasetError(f"{_label(dataset)}: no rows")
    return count, envs


def from_dataset(
    dataset: Rows, default_env: str | None, fields: dict[str, Any], rows: int, rollouts: int = 1
) -> Iterator[EpisodeSpec]:
    """Episode i: row i of `dataset` (rows already checked by `check_dataset`), the first
    `rows` of them, each `rollouts` times in a row."""
    for index, line in enumerate(_lines(dataset)):
        if index >= rows or line.row is None:
            return
        env_config = {**line.row.get("env_config", {}), **fields}
        env = str(resolve_name(env_config, default_env))
        yield from _rollouts(index, env, env_config, rollouts)
