"""What swift-gym puts in ms-swift's `envs` dict: one callable per registered name.

ms-swift calls `envs[name](env_config)`. The factory resolves the name through the swift-gym
registry only then (so an unused or broken env costs nothing) and returns an env whose
`env_config` was validated, or raises the clear error of the row's env.

ms-swift's own `gym_scheduler` reads only text, so an env that offers tools cannot be played by
it: the factory guards each env's first `step`, which raises `SchedulerError` naming
`--multi_turn_scheduler swift_gym` when the env offers tools. The `swift_gym` scheduler builds
its envs without the guard (`EnvFactory.build`). A text env passes the guard once, unchanged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from ..env import Env
from ..errors import InvalidConfigError, SchedulerError
from ..registry import default_registry


class EnvFactory:
    """`envs[name]` in ms-swift: builds the env registered as `name` for one dataset row."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, env_config: Mapping[str, Any] | None = None) -> Env:
        env = self.build(env_config)
        _guard(env, self.name)
        return env

    def build(self, env_config: Mapping[str, Any] | None = None) -> Env:
        """The env, unguarded: for a scheduler that plays tool envs (`swift_gym`)."""
        env_class = default_registry().get_env_class(self.name)
        try:
            return env_class(env_config if env_config is not None else {})
        except InvalidConfigError as error:
            error.env_name = self.name
            raise

    def __repr__(self) -> str:
        return f"<swift-gym env {self.name!r}>"


class _FirstStepGuard:
    """`env.step` until the first step: raises for a tool env, else steps on without itself."""

    def __init__(self, env: Env, name: str):
        self.env = env
        self.name = name

    def __call__(self, messages: Any) -> Any:
        env = self.env
        env.__dict__.pop("step", None)  # from now on the class's own step
        if env.tools():
            raise SchedulerError(
                f"env {self.name!r} offers tools, which ms-swift's gym_scheduler cannot play (it "
                "sends the model's text only, and gives tool results no tool messages): train "
                "it with --multi_turn_scheduler swift_gym (and an --agent_template, e.g. hermes)"
            )
        return env.step(messages)


def _guard(env: Env, name: str) -> None:
    with contextlib.suppress(AttributeError, TypeError):  # __slots__: left unguarded
        env.step = _FirstStepGuard(env, name)  # type: ignore[method-assign]
