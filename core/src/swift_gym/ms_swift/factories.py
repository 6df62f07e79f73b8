"""What swift-gym puts in ms-swift's `envs` dict: one callable per registered name.

ms-swift calls `envs[name](env_config)`. The factory resolves the name through the swift-gym
registry only then (so an unused or broken env costs nothing) and returns an env whose
`env_config` was validated, or raises the clear error of the row's env.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..env import Env
from ..errors import InvalidConfigError
from ..registry import default_registry


class EnvFactory:
    """`envs[name]` in ms-swift: builds the env registered as `name` for one dataset row."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, env_config: Mapping[str, Any] | None = None) -> Env:
        env_class = default_registry().get_env_class(self.name)
        try:
            return env_class(env_config if env_config is not None else {})
        except InvalidConfigError as error:
            error.env_name = self.name
            raise

    def __repr__(self) -> str:
        return f"<swift-gym env {self.name!r}>"
