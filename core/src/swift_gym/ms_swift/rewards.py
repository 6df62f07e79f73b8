"""Reward functions for ms-swift's `orms`: the env's own reward, and those plugins register.

With `--use_vllm false` ms-swift silently ignores `--use_gym_env`, so the env's reward reaches
training only through a reward function: `--reward_funcs swift_gym_total`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol

from ..plugins import (
    LoadedPlugins,
    PluginInfo,
    call_each_plugin,
    contain,
    describe_error,
    load_plugins,
)

logger = logging.getLogger("swift_gym")

RewardFunction = Callable[..., Sequence[float | None]]


class RegisterReward(Protocol):
    """The `register` callback handed to `swift_gym_register_rewards`."""

    def __call__(self, name: str, reward: RewardFunction | str) -> None: ...


def _number(value: Any) -> float:
    """`value` as a finite float; 0.0 for anything else (a missing or broken entry scores 0)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def total_reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """Each row's env episode reward, `rollout_infos['total_reward']`; 0.0 where there is none."""
    infos = kwargs.get("rollout_infos") or [None] * len(completions)
    return [_number(info.get("total_reward")) if isinstance(info, dict) else 0.0 for info in infos]


def success(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """Each row's `env_metrics['success']` from the `swift_gym` scheduler; 0.0 where there is none.

    Give it weight 0 (`--reward_weights ... 0`) to log the success rate as
    `rewards/SwiftGymSuccess/mean` without changing what is trained.
    """
    infos = kwargs.get("rollout_infos") or [None] * len(completions)
    scores = []
    for info in infos:
        metrics = info.get("env_metrics") if isinstance(info, dict) else None
        scores.append(_number(metrics.get("success")) if isinstance(metrics, dict) else 0.0)
    return scores


BUILTIN_REWARDS: dict[str, RewardFunction] = {
    "swift_gym_total": total_reward,
    "swift_gym_success": success,
}


def collect_rewards(loaded: LoadedPlugins | None = None) -> dict[str, RewardFunction | str]:
    """Every reward function: the built-in ones, then each plugin's (first name wins)."""
    loaded = loaded or load_plugins()
    rewards: dict[str, RewardFunction | str] = dict(BUILTIN_REWARDS)

    def register(source: PluginInfo, name: str, reward: RewardFunction | str) -> None:
        if name in rewards:
            logger.warning("swift-gym: %s registers reward %r again; ignored", source.name, name)
        elif isinstance(name, str) and (callable(reward) or isinstance(reward, str)):
            rewards[name] = reward
        else:
            logger.warning(
                "swift-gym: %s registers reward %r as %r; ignored", source.name, name, reward
            )

    call_each_plugin(loaded, "swift_gym_register_rewards", lambda source: partial(register, source))
    return rewards


def reward_functions(orm_base: type) -> dict[str, type]:
    """ms-swift `ORM` subclasses, one per reward function, named as registered."""
    return {name: _orm_class(orm_base, name, reward) for name, reward in collect_rewards().items()}


def _orm_class(orm_base: type, name: str, reward: RewardFunction | str) -> type:
    def __call__(self: Any, completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        function = self._function
        if function is None:
            from ..registry import _import_target

            try:
                function = _import_target(reward)  # type: ignore[arg-type]
            except BaseException as error:  # sys.exit() in a reward module: say whose it was
                contain(error, f"importing swift-gym reward {name!r} ({reward})")
                raise RuntimeError(
                    f"swift-gym reward {name!r} ({reward}) failed to import: "
                    f"{describe_error(error)}"
                ) from error
            type(self)._function = staticmethod(function)
        return list(function(completions, **kwargs))

    function = None if isinstance(reward, str) else reward
    doc = (getattr(function, "__doc__", None) or f"swift-gym reward {name!r}").strip()
    class_name = "".join(part.title() for part in name.split("_")) or "SwiftGymReward"
    namespace = {
        "__call__": __call__,
        "_function": None if function is None else staticmethod(function),
        "__doc__": doc,
        "__module__": __name__,
    }
    return type(class_name, (orm_base,), namespace)
