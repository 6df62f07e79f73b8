"""Every hook swift-gym calls, documented in one place.

A plugin is a module (or object) with functions marked `@swift_gym.hookimpl`, named like the
specs below. Installed plugins load from the `swift_gym.plugins` entry-point group; envs that
need no code beyond a class use the simpler `swift_gym.envs` group, which a built-in plugin reads
through the same `swift_gym_register_envs` hook.
Every `swift_gym_*` function of a plugin must be one of these hooks and be marked: a misspelt
name (`swift_gym_register_env`) or a missing `@swift_gym.hookimpl` would never be called, so it
is reported as a problem of the plugin's distribution (a warning, and `swift-gym plugins` exits 1).

The `register` callbacks the hooks receive are specified here too, so the registries (`registry`
for envs, `rewards` for reward functions) import this module and it imports neither: no circle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import pluggy

if TYPE_CHECKING:
    from .env import Env

PROJECT_NAME = "swift_gym"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

RewardFunction = Callable[..., Sequence[float | None]]
"""`reward(completions, **kwargs) -> list[float]`, as ms-swift calls a reward function."""


class RegisterEnv(Protocol):
    """The `register` callback handed to `swift_gym_register_envs`."""

    def __call__(
        self,
        name: str,
        env: type[Env] | str,
        *,
        description: str | None = None,
        distribution: str | None = None,
        version: str | None = None,
        tool_use: str | None = None,
    ) -> None: ...


class RegisterReward(Protocol):
    """The `register` callback handed to `swift_gym_register_rewards`."""

    def __call__(self, name: str, reward: RewardFunction | str) -> None: ...


@hookspec
def swift_gym_register_envs(register: RegisterEnv) -> None:
    """Register envs by calling `register(name, env, *, description=None, tool_use=None)`.

    `env` is an `Env` subclass, or a "module:attribute" string imported only when the env is
    first used (so listing envs never imports them). Call `register` once per env; families of
    envs, or envs made from data files, call it in a loop. Names may hold letters, digits, "_",
    "-" and "." but no ":" (that separates `distribution:name` when two packages clash).
    `tool_use` declares whether the env gives the model tools: "always", "opt-in" (when its
    config asks), "varies" (whatever the env it plays offers) or "no" (see `swift_gym.tools.use`);
    `swift-gym list` shows it and `--tools` filters by it without importing the env.
    """


@hookspec
def swift_gym_register_rewards(register: RegisterReward) -> None:
    """Register reward functions for ms-swift's `--reward_funcs` with `register(name, reward)`.

    `reward` is a callable `reward(completions, **kwargs) -> list[float]` (ms-swift passes each
    row's columns as lists in kwargs: `messages`, `rollout_infos`, dataset columns), or a
    "module:attribute" string naming one, imported on first use. swift-gym wraps it in an ms-swift
    `ORM` class and adds it to `swift.rewards.orm.orms` when ms-swift imports that module; names
    ms-swift already has are left alone.
    """
