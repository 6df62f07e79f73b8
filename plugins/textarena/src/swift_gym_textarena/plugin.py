"""The package's swift-gym hook plugin (entry point group `swift_gym.plugins`).

It registers `textarena.<id>` for every id of the static list in `ids`, naming each class by
"module:attribute", so `swift-gym list` imports nothing of TextArena (which imports openai,
nltk and every game's registration on import) nor any of this package's game modules.
"""

from __future__ import annotations

from typing import Any

import swift_gym

from .ids import ENV_CLASSES, TA_IDS, TOOL_GAMES, env_name


@swift_gym.hookimpl
def swift_gym_register_envs(register: Any) -> None:
    for ta_id, game in TA_IDS.items():
        name = env_name(ta_id)
        register(
            name,
            ENV_CLASSES[name],
            description=f"TextArena {game}: {ta_id}",
            tool_use="opt-in" if game in TOOL_GAMES else "no",
        )
