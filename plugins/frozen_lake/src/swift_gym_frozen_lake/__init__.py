"""FrozenLake for swift-gym: walk from S to G on a seeded lake without falling into a hole.

Registered as env `frozen_lake` in the `swift_gym.envs` entry-point group. Maps are
seed-compatible with the ms-swift example plugin; configs are validated strictly up front.
Attributes load on first use, so the hook plugin (`swift_gym_frozen_lake.plugin`) stays cheap
to import when swift-gym lists envs.
"""

from __future__ import annotations

from swift_gym.lazy import attach

__version__ = "0.1.0"

_EXPORTS = {
    "ACTIONS": "maps",
    "SYSTEM_PROMPT": "render",
    "FrozenLakeConfig": "config",
    "FrozenLakeEnv": "env",
    "MsSwiftFrozenLakeConfig": "config",
    "MsSwiftFrozenLakeEnv": "env",
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
    "MsSwiftFrozenLakeConfig",
    "MsSwiftFrozenLakeEnv",
    "__version__",
    "format_reward",
    "generate_random_map",
    "parse_action",
    "solve",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .actions import parse_action
    from .config import FrozenLakeConfig, MsSwiftFrozenLakeConfig
    from .env import FrozenLakeEnv, MsSwiftFrozenLakeEnv
    from .maps import ACTIONS, generate_random_map, solve
    from .render import SYSTEM_PROMPT
    from .rewards import format_reward


__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
