"""FrozenLake's swift-gym hook plugin (entry point group `swift_gym.plugins`).

Kept import-light: it names its reward by "module:attribute", imported on first use.
"""

from __future__ import annotations

from typing import Any

import swift_gym


@swift_gym.hookimpl
def swift_gym_register_rewards(register: Any) -> None:
    register("frozen_lake_format", "swift_gym_frozen_lake.rewards:format_reward")
