"""The operator's settings for verifiers envs, read from the process environment.

`SWIFT_GYM_VERIFIERS_TASKSETS` is a JSON object from taskset id to that taskset's config
(verifiers' `--env.taskset.*`), e.g. `{"openenv": {"base_url": "http://127.0.0.1:8000"}}`.
It is the operator's, never a row's: a taskset config can name modules to import (reward
hooks), files to read (`system_prompt`), hosts and commands (OpenEnv's `base_url`, `env`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from swift_gym import SwiftGymError, printable, short_repr

VARIABLE = "SWIFT_GYM_VERIFIERS_TASKSETS"


class SettingsError(SwiftGymError, ValueError):
    """The operator's `SWIFT_GYM_VERIFIERS_TASKSETS` is not usable."""


def taskset_overrides(taskset_id: str) -> dict[str, Any]:
    """The operator's config for `taskset_id` (an empty dict when none is set)."""
    text = os.environ.get(VARIABLE, "").strip()
    if not text:
        return {}
    try:
        settings = json.loads(text)
    except ValueError as error:
        raise SettingsError(f"{VARIABLE} is not JSON: {error}") from None
    if not isinstance(settings, dict):
        raise SettingsError(f"{VARIABLE} must be a JSON object, got {short_repr(settings)}")
    overrides = settings.get(taskset_id, {})
    if not isinstance(overrides, dict):
        raise SettingsError(
            f"{VARIABLE}[{taskset_id!r}] must be a JSON object, got {short_repr(overrides)}"
        )
    if "id" in overrides:
        raise SettingsError(f"{VARIABLE}[{taskset_id!r}] may not set 'id': it is the env's")
    return overrides


MAX_PROBLEMS_SHOWN = 3


def config_error(taskset_id: str, problems: Iterable[Mapping[str, Any]]) -> SettingsError:
    """The error for a taskset config that verifiers refused (pydantic's `errors()` of it):
    what is missing or wrong, and how the operator sets it, since a row never can.

    Short enough to be read whole where an episode's error is cut (300 characters)."""
    missing: list[tuple[str, ...]] = []
    wrong: list[str] = []
    for problem in problems:
        loc = tuple(str(part) for part in problem.get("loc", ()))
        path = loc[1:] if loc[:1] == ("taskset",) else loc
        if problem.get("type") == "missing" and loc[:1] == ("taskset",) and path:
            missing.append(path)
        else:
            where = ".".join(path) or "the config"
            wrong.append(f"{where}: {problem.get('msg', 'invalid')}")
    if not missing:
        text = printable("; ".join(wrong[:MAX_PROBLEMS_SHOWN]), 120)
        return SettingsError(
            f"verifiers taskset {taskset_id!r} refused its config ({VARIABLE}[{taskset_id!r}]): "
            f"{text}"
        )
    example: dict[str, Any] = {}
    for path in missing[:MAX_PROBLEMS_SHOWN]:
        slot = example
        for part in path[:-1]:
            slot = slot.setdefault(part, {})
        slot[path[-1]] = "..."
    names = printable(", ".join(".".join(path) for path in missing[:MAX_PROBLEMS_SHOWN]), 80)
    also = f"; {printable(wrong[0], 60)}" if wrong else ""
    sample = printable(json.dumps({taskset_id: example}), 100)
    return SettingsError(
        f"verifiers taskset {taskset_id!r} needs config only the operator sets: {names} "
        f"(required){also}. Set it in {VARIABLE}, e.g. {VARIABLE}='{sample}'"
    )
