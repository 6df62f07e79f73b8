"""TextArena's single-player games for swift-gym, each registered as `textarena.<id>`.

Every single-player game of TextArena 0.7.4 that plays offline, with each of its registered
difficulty ids. The envs are registered by the hook plugin `swift_gym_textarena.plugin` from a
static list (ids.py), so listing them imports nothing of TextArena; attributes here load on
first use for the same reason.
"""

from __future__ import annotations

from swift_gym.lazy import attach

__version__ = "0.1.0"

_EXPORTS = {
    "ENV_NAMES": "ids",
    "EXCLUDED": "ids",
    "GAME_IDS": "ids",
    "TA_IDS": "ids",
    "TextArenaConfig": "config",
    "TextArenaEnv": "env",
    "TextArenaGameError": "env",
    "env_class": "games",
}

__all__ = [
    "ENV_NAMES",
    "EXCLUDED",
    "GAME_IDS",
    "TA_IDS",
    "TextArenaConfig",
    "TextArenaEnv",
    "TextArenaGameError",
    "__version__",
    "env_class",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .config import TextArenaConfig
    from .env import TextArenaEnv, TextArenaGameError
    from .games import env_class
    from .ids import ENV_NAMES, EXCLUDED, GAME_IDS, TA_IDS

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
