"""The package's swift-gym hook plugin (entry point group `swift_gym.plugins`).

It registers `reasoning_gym.<task>` for each task of the static list in `ids`, naming each
class by "module:attribute", so `swift-gym list` imports nothing of reasoning-gym (about a
second) and none of this package's env modules.
"""

from __future__ import annotations

from typing import Any

import swift_gym

from .ids import TASKS, description, env_name, target


@swift_gym.hookimpl
def swift_gym_register_envs(register: Any) -> None:
    for task in TASKS:
        # `python` with tools: ["python"], on every task
        register(env_name(task), target(task), description=description(task), tool_use="opt-in")
