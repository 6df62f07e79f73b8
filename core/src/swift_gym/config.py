"""The base model for env configs, and the one place pydantic errors become user errors.

An env's `env_config` comes from a dataset row, so it is checked strictly: unknown keys are
refused (with a did-you-mean), types are not coerced from strings, and every field is bounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import MAX_PROBLEMS, ConfigProblem, InvalidConfigError, did_you_mean

SEED_MAX = 2**64 - 1


class EnvConfig(BaseModel):
    """Fields every env accepts. Subclass it and add bounded fields for your env."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    name: str | None = Field(
        None, max_length=200, description="Registered env name; picks the env for this row."
    )
    seed: int | None = Field(
        None, ge=0, le=SEED_MAX, description="Seed of the episode: same seed, same episode."
    )


def validate_config(
    model: type[EnvConfig], env_config: Mapping[str, Any] | EnvConfig | None, env_name: str
) -> EnvConfig:
    """Validate `env_config` into `model`, or raise one `InvalidConfigError` naming `env_name`."""
    if isinstance(env_config, model):
        return env_config
    if isinstance(env_config, BaseModel):
        env_config = env_config.model_dump(exclude_unset=True)
    if env_config is None:
        env_config = {}
    if not isinstance(env_config, Mapping):
        problem = ConfigProblem("env_config", "must be a JSON object (a dict)", env_config)
        raise InvalidConfigError(env_name, [problem])
    try:
        return model.model_validate(dict(env_config))
    except ValidationError as error:
        problems = _problems(error, model)
        raise InvalidConfigError(env_name, problems, error.error_count() - len(problems)) from None


def _problems(error: ValidationError, model: type[EnvConfig]) -> list[ConfigProblem]:
    """One `ConfigProblem` per pydantic error (the first `MAX_PROBLEMS`), with did-you-mean for
    unknown keys."""
    known = [name for name, field in model.model_fields.items() if not field.exclude]
    problems = []
    for item in error.errors(include_url=False)[:MAX_PROBLEMS]:
        field = ".".join(str(part) for part in item["loc"]) or "env_config"
        if item["type"] == "extra_forbidden":
            key = str(item["loc"][-1])
            problems.append(
                ConfigProblem(
                    field,
                    "unknown key",
                    item.get("input"),
                    suggestion=did_you_mean(key, known),
                    hint="allowed keys: " + ", ".join(known),
                )
            )
            continue
        reason = item["msg"]
        if item["type"].startswith("value_error"):
            reason = reason.removeprefix("Value error, ")
        has_value = "input" in item and item["type"] != "missing"
        problems.append(ConfigProblem(field, reason, item.get("input"), has_value=has_value))
    return problems
