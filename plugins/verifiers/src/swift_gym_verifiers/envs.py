"""Every installed taskset's env class, made on first access (`envs.taskset_sg_reverse`).

The hook registers "swift_gym_verifiers.envs:taskset_<id>" for `verifiers.<id>`; asking for
the attribute makes the class once. Only ids that `discover.installed()` finds exist here, so
a name from data never imports a module that is not an installed verifiers environment.
"""

from __future__ import annotations

import threading
from typing import Any

PREFIX = "taskset_"
_lock = threading.Lock()


def attribute(taskset_id: str) -> str:
    return PREFIX + taskset_id


def __getattr__(name: str) -> Any:
    from .discover import ID, installed

    taskset_id = name.removeprefix(PREFIX)
    if not name.startswith(PREFIX) or not ID.fullmatch(taskset_id):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if taskset_id not in installed():
        raise AttributeError(f"no installed verifiers environment {taskset_id!r}")
    from .env import env_class

    with _lock:
        made = globals().get(name)
        if made is None:
            made = globals()[name] = env_class(taskset_id, name)
    return made
