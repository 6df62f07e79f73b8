"""Looking up the env a command names, with errors that stop the command (exit code 2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..env import Env


def env_class(name: str) -> type[Env]:
    """The class registered as `name`; Unknown-, Ambiguous- or EnvLoadError otherwise."""
    from ..registry import default_registry

    return default_registry().get_env_class(name)


def check_base_config(name: str, env_config: Mapping[str, Any]) -> type[Env]:
    """The env's class, once `env_config` (with `name` added) fits its schema.

    Run before generating many rows or episodes from one config, so a bad `--set` stops the
    command at once instead of failing every row.
    """
    from ..config import validate_config

    cls = env_class(name)
    validate_config(cls.config_model, {"name": name, **env_config}, name)
    return cls


def offers(cls: type[Env], method: str) -> bool:
    """Whether `cls` overrides the optional `Env` method `method` (oracle_reply, ...)."""
    from ..env import Env

    return getattr(cls, method, None) is not getattr(Env, method)
