"""Dataset rows: read a JSONL file line by line, and check each row's `env_config`.

Shared by the commands `validate` (every row of a file) and `dataset` (every row it writes) and
by the evaluation library (the rows `evaluate(dataset=...)` plays, the trajectory file). Reading
streams, from a file, a pipe or stdin (`-`), so a file of any size costs one line of memory; a
line that is not JSON (or nests too deep) is reported with its number instead of stopping the
run. Env names resolve exactly as ms-swift resolves them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .errors import (
    AmbiguousEnvError,
    ConfigProblem,
    EnvLoadError,
    InvalidConfigError,
    UnknownEnvError,
    did_you_mean,
    printable,
    short_repr,
)
from .install_hints import ENV_PACKAGE_HINT
from .json_text import TooDeepError, loads
from .plugins import Terminated, describe_error

if TYPE_CHECKING:
    from .env import Env
    from .registry import Registry

NO_ENV = "no env"
"""Where rows without a usable env name are counted (env names never hold spaces)."""
_CACHE_LIMIT = 4096
_CACHE_KEY_CHARS = 10_000
_TOP_KEYS_SEARCHED = 100
_VALUE_CHARS = 200
STDIN = "-"


@dataclass(frozen=True)
class Line:
    """One non-blank line of a JSONL file: the row, or why it is not one."""

    number: int
    """1-based line number, as editors show it."""
    end: int
    """Byte offset after the line, for progress bars."""
    row: dict[str, Any] | None
    error: str | None = None
    cut: bool = False
    """The file ends inside this line (no newline) and it is no JSON: what a writer that was
    killed mid-line leaves behind."""


def read_jsonl(path: Path) -> Iterator[Line]:
    """Each non-blank line of `path` (`-`: stdin) parsed as a JSON object, or why it is not one.

    Reads forward only, so pipes, FIFOs and `/dev/stdin` work like files.
    """
    if str(path) == STDIN:
        yield from _lines(sys.stdin.buffer)
        return
    with path.open("rb") as file:
        yield from _lines(file)


def _lines(file: IO[bytes]) -> Iterator[Line]:
    end = 0
    for number, raw in enumerate(file, 1):
        end += len(raw)
        if not raw.strip():
            continue
        try:
            value = loads(raw)
        except TooDeepError as error:
            yield Line(number, end, None, f"refused: JSON {error}")
            continue
        except ValueError as error:  # invalid JSON or invalid UTF-8
            if not raw.endswith(b"\n"):  # the last line, and it stops short
                why = "cut off: the file ends inside this line (a writer stopped mid-line?)"
                yield Line(number, end, None, why, cut=True)
                continue
            yield Line(number, end, None, f"not valid JSON: {error}")
            continue
        if not isinstance(value, dict):
            kind = type(value).__name__
            yield Line(number, end, None, f"a row must be a JSON object, got {kind}")
            continue
        yield Line(number, end, value)


def resolve_name(env_config: Mapping[str, Any], default_env: str | None) -> Any:
    """The env name of a row as ms-swift's `GYMScheduler._create_env` takes it:
    `env_config.get('name', gym_env)`. An explicit null is the name (None), not --gym_env."""
    return env_config.get("name", default_env)


def env_label(name: str) -> str:
    """A name from data as it may appear in a report: short and printable."""
    return name if len(name) <= 80 and name.isprintable() else short_repr(name)


@dataclass(frozen=True)
class RowCheck:
    """What checking one row found: which env it is for, and what is wrong (nothing if ok)."""

    env: str
    problems: tuple[ConfigProblem, ...] = ()
    omitted: int = 0
    """Problems beyond those listed (a config with thousands of unknown keys)."""
    of_env: bool = False
    """The problem is the env's (it failed to load, its name is ambiguous), not this row's: every
    row naming the env has it."""

    @property
    def ok(self) -> bool:
        return not self.problems


def _name_problem(reason: str, value: Any, **extra: Any) -> ConfigProblem:
    return ConfigProblem("env_config.name", reason, value, **extra)


def unknown_env_reason(error: UnknownEnvError) -> tuple[str, str | None, str]:
    """A one-line reason, a did-you-mean and the list of installed envs, for a row report."""
    installed = error.installed.listing() or f"none ({ENV_PACKAGE_HINT})"
    return "unknown env", error.suggestion, f"installed: {installed}"


class RowChecker:
    """Checks env_configs against their env's schema and, with `build`, by building the env.

    Building is what ms-swift does at rollout time, so it also catches configs the schema
    cannot (FrozenLake: no solvable map for this size, p and seed). Identical env_configs are
    checked once.
    """

    def __init__(self, registry: Registry, default_env: str | None = None, build: bool = True):
        self.registry = registry
        self.default_env = default_env
        self.build = build
        self._cache: dict[str, RowCheck] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def check_row(
        self, row: Mapping[str, Any], fields: Mapping[str, Any] | None = None
    ) -> RowCheck:
        """Check a dataset row's `env_config` (absent means `{}`, as in ms-swift), with `fields`
        (eval's `--set`) set over it."""
        if "env_config" not in row:
            misspelt = _misspelt_env_config(row)
            if misspelt is not None:
                return RowCheck(self.default_env or NO_ENV, (misspelt,))
        env_config = row.get("env_config", {})
        if not isinstance(env_config, Mapping):
            problem = ConfigProblem("env_config", "must be a JSON object", env_config)
            return RowCheck(self.default_env or NO_ENV, (problem,))
        return self.check({**env_config, **fields} if fields else env_config)

    def check(self, env_config: Mapping[str, Any]) -> RowCheck:
        """Check one env_config; its `name` wins over the default env."""
        try:
            key = json.dumps(env_config, sort_keys=True)
        except (TypeError, ValueError, RecursionError):
            return self._check(env_config)
        if len(key) > _CACHE_KEY_CHARS:  # a huge config is not worth keeping
            return self._check(env_config)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            found = self._cache[key] = self._check(env_config)
        return found

    def _check(self, env_config: Mapping[str, Any]) -> RowCheck:
        name = resolve_name(env_config, self.default_env)
        if name is None and "name" in env_config:
            reason = (
                "is null, and ms-swift takes an explicit null as the env name (it does not fall "
                "back to --gym_env): drop the key to use --gym-env, or name the env"
            )
            return RowCheck(NO_ENV, (_name_problem(reason, None, has_value=False),))
        if name is None:
            reason = "no env name: set env_config.name in the row, or pass the env (--gym-env)"
            return RowCheck(NO_ENV, (_name_problem(reason, None, has_value=False),))
        if not isinstance(name, str):
            return RowCheck(NO_ENV, (_name_problem("must be a string", name),))
        try:
            env_class = self.registry.get_env_class(name)
        except UnknownEnvError as error:
            reason, suggestion, hint = unknown_env_reason(error)
            problem = _name_problem(reason, name, suggestion=suggestion, hint=hint)
            return RowCheck(env_label(name), (problem,))
        except (AmbiguousEnvError, EnvLoadError) as error:
            return RowCheck(env_label(name), (_name_problem(str(error), name),), of_env=True)
        try:
            if self.build:
                self._build(env_class, env_config)
            else:
                from .config import validate_config

                validate_config(env_class.config_model, env_config, name)
        except InvalidConfigError as error:
            problems = tuple(_in_env_config(problem) for problem in error.problems)
            return RowCheck(name, problems, error.omitted)
        except BaseException as error:  # an env's constructor may raise anything: report it
            if isinstance(error, (KeyboardInterrupt, Terminated)):  # Ctrl-C, SIGTERM: stop
                raise
            # anything else, a sys.exit() in the constructor included, is this row's problem
            reason = f"building the env raised {describe_error(error)}"
            return RowCheck(name, (ConfigProblem("env_config", reason, has_value=False),))
        return RowCheck(name)

    def _build(self, env_class: type[Env], env_config: Mapping[str, Any]) -> None:
        from .env import Env

        env = env_class(env_config)
        if type(env).close is not Env.close:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
            self._loop.run_until_complete(env.close())

    def close(self) -> None:
        """Close the event loop used to close built envs."""
        if self._loop is not None:
            self._loop.close()
            self._loop = None

    def __enter__(self) -> RowChecker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _misspelt_env_config(row: Mapping[str, Any]) -> ConfigProblem | None:
    """A problem if the row has no env_config but a key that looks like a misspelling of it."""
    for key in itertools.islice(row, _TOP_KEYS_SEARCHED):
        if isinstance(key, str) and did_you_mean(key, ["env_config"]):
            reason = f"missing, but the row has the key {short_repr(key)}"
            return ConfigProblem("env_config", reason, has_value=False, suggestion="env_config")
    return None


def _in_env_config(problem: ConfigProblem) -> ConfigProblem:
    """The problem with its field named from the row: `size` -> `env_config.size`."""
    if problem.field == "env_config" or problem.field.startswith("env_config."):
        return problem
    return ConfigProblem(
        f"env_config.{problem.field}",
        problem.reason,
        problem.value,
        has_value=problem.has_value,
        suggestion=problem.suggestion,
        hint=problem.hint,
    )


def problem_fields(problem: ConfigProblem) -> dict[str, Any]:
    """A problem as JSON fields: `field`, `reason` (with did-you-mean and hint), and the value:
    `value` as given when it is small and plain JSON, else `value_excerpt`, a cut repr."""
    reason = printable(problem.reason)
    if problem.suggestion:
        reason += f"; did you mean {short_repr(problem.suggestion)}?"
    if problem.hint:
        reason += f"; {printable(problem.hint)}"
    fields: dict[str, Any] = {"field": printable(problem.field), "reason": reason}
    if problem.has_value:
        excerpt = short_repr(problem.value, _VALUE_CHARS + 1)
        if len(excerpt) <= _VALUE_CHARS and "..." not in excerpt and _plain_json(problem.value):
            fields["value"] = problem.value
        else:
            fields["value_excerpt"] = short_repr(problem.value, _VALUE_CHARS)
    return fields


def _plain_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True
