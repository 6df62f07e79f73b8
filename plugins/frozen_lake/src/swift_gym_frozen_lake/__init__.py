"""FrozenLake for swift-gym: walk from S to G on a seeded lake without falling into a hole.

Registered as env `frozen_lake` in the `swift_gym.envs` entry-point group. Maps are
seed-compatible with the ms-swift example plugin; configs are validated strictly up front.
Attributes load on first use, so the hook plugin (`swift_gym_frozen_lake.plugin`) stays cheap
to import when swift-gym lists envs.
"""

from __future__ import annotations

__version__ = "0.1.0"

_EXPORTS = {
    "ACTIONS": "maps",
    "SYSTEM_PROMPT": "render",
    "FrozenLakeConfig": "config",
    "FrozenLakeEnv": "env",
    "format_reward": "rewards",
    "generate_random_map": "maps",
    "parse_action": "actions",
    "solve": "maps",
}

__all__ = [
    "ACTIONS",
    "SYSTEM_PROMPT",
    "FrozenLakeConfig",
    "FrozenLakeEnv",
    "__version__",
    "format_reward",
    "generate_random_map",
    "parse_action",
    "solve",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .actions import parse_action
    from .config import FrozenLakeConfig
    from .env import FrozenLakeEnv
    from .maps import ACTIONS, generate_random_map, solve
    from .render import SYSTEM_PROMPT
    from .rewards import format_reward


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'swift_gym_frozen_lake' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
