"""The operator's settings for verifiers envs, read from the process environment.

`SWIFT_GYM_VERIFIERS_TASKSETS` is a JSON object from taskset id to that taskset's config
(verifiers' `--env.taskset.*`), e.g. `{"openenv": {"base_url": "http://127.0.0.1:8000"}}`.
It is the operator's, never a row's: a taskset config can name modules to import (reward
hooks), files to read (`system_prompt`), hosts and commands (OpenEnv's `base_url`, `env`).
"""

from __future__ import annotations

import json
import os
from typing import Any

from swift_gym.errors import SwiftGymError, short_repr

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
