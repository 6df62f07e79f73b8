"""The reward registry: names to reward functions, the built-in ones and those plugins register.

Beside the env registry (`registry`): filled through the `swift_gym_register_rewards` hook, read
by the ms-swift adapter (`ms_swift.rewards` wraps each in an `ORM` class for `--reward_funcs`).
With `--use_vllm false` ms-swift silently ignores `--use_gym_env`, so the env's reward reaches
training only through a reward function: `--reward_funcs swift_gym_total`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from functools import partial
from typing import Any

from .hookspecs import RegisterReward, RewardFunction  # noqa: F401 (RegisterReward: for plugins)
from .plugins import LoadedPlugins, PluginInfo, call_each_plugin, load_plugins

logger = logging.getLogger("swift_gym")


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
