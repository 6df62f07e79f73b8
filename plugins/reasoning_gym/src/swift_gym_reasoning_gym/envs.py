"""Every task's env class, made on first access (`envs.ChainSumEnv`), not at import.

The hook registers "swift_gym_reasoning_gym.envs:ChainSumEnv" for `reasoning_gym.chain_sum`:
asking for the attribute derives the task's config model (importing reasoning-gym) and makes
the class once. Only the names in `ids.TASKS` exist here.
"""

from __future__ import annotations

import threading
from typing import Any

from .ids import TASKS, class_name

_TASK_OF = {class_name(task): task for task in TASKS}
_lock = threading.Lock()


def __getattr__(name: str) -> Any:
    task = _TASK_OF.get(name)
    if task is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .env import env_class

    with _lock:
        made = globals().get(name)
        if made is None:
            made = globals()[name] = env_class(task, name)
    return made


def __dir__() -> list[str]:
    return sorted(_TASK_OF)
