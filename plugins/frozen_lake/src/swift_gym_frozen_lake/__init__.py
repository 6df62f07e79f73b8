"""FrozenLake for swift-gym: walk from S to G on a seeded lake without falling into a hole.

Registered as env `frozen_lake` in the `swift_gym.envs` entry-point group. Maps are
seed-compatible with the ms-swift example plugin; configs are validated strictly up front.
"""

from __future__ import annotations

from .actions import parse_action
from .config import FrozenLakeConfig
from .env import FrozenLakeEnv
from .maps import ACTIONS, generate_random_map, solve
from .render import SYSTEM_PROMPT

__version__ = "0.1.0"

__all__ = [
    "ACTIONS",
    "SYSTEM_PROMPT",
    "FrozenLakeConfig",
    "FrozenLakeEnv",
    "__version__",
    "generate_random_map",
    "parse_action",
    "solve",
]
