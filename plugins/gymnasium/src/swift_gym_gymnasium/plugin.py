"""The package's swift-gym hook plugin (entry point group `swift_gym.plugins`).

It registers `gymnasium.<id>` for each id of the static list in `ids`, naming each class by
"module:attribute", so `swift-gym list` imports nothing of Gymnasium (about 0.3 s) or of the
game modules. A plugin rather than one `swift_gym.envs` entry point per id: each env gets its
own description in `swift-gym list`.
"""

from __future__ import annotations

from typing import Any

import swift_gym

from .ids import DESCRIPTIONS, ENV_CLASSES, GYM_IDS, env_name


@swift_gym.hookimpl
def swift_gym_register_envs(register: Any) -> None:
    for gym_id in GYM_IDS:
        register(
            env_name(gym_id),
            ENV_CLASSES[gym_id],
            description=DESCRIPTIONS[gym_id],
            tool_use="opt-in",  # the game's one function with action_format: tool
        )
