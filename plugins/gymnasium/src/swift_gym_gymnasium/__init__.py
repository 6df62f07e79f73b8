"""Gymnasium's toy-text envs for swift-gym, each registered as `gymnasium.<id>`.

FrozenLake-v1, FrozenLake8x8-v1, Taxi-v4, CliffWalking-v1, CliffWalkingSlippery-v1 and
Blackjack-v1, played with `<action>NAME</action>` replies and read as plain text. The envs are
registered by the hook plugin `swift_gym_gymnasium.plugin` from a static list, so listing them
imports no game module and nothing of Gymnasium; attributes here load on first use for the
same reason.
"""

from __future__ import annotations

from swift_gym.lazy import attach

__version__ = "0.1.0"

_EXPORTS = {
    "BlackjackConfig": "blackjack",
    "BlackjackEnv": "blackjack",
    "CliffWalkingConfig": "cliff_walking",
    "CliffWalkingEnv": "cliff_walking",
    "CliffWalkingSlipperyEnv": "cliff_walking",
    "ENV_NAMES": "ids",
    "FrozenLake8x8Config": "frozen_lake",
    "FrozenLake8x8Env": "frozen_lake",
    "FrozenLakeConfig": "frozen_lake",
    "FrozenLakeEnv": "frozen_lake",
    "GYM_IDS": "ids",
    "GymnasiumEnv": "base",
    "TaxiConfig": "taxi",
    "TaxiEnv": "taxi",
    "basic_strategy": "blackjack",
    "plan": "planner",
}

__all__ = [
    "ENV_NAMES",
    "GYM_IDS",
    "BlackjackConfig",
    "BlackjackEnv",
    "CliffWalkingConfig",
    "CliffWalkingEnv",
    "CliffWalkingSlipperyEnv",
    "FrozenLake8x8Config",
    "FrozenLake8x8Env",
    "FrozenLakeConfig",
    "FrozenLakeEnv",
    "GymnasiumEnv",
    "TaxiConfig",
    "TaxiEnv",
    "__version__",
    "basic_strategy",
    "plan",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import GymnasiumEnv
    from .blackjack import BlackjackConfig, BlackjackEnv, basic_strategy
    from .cliff_walking import CliffWalkingConfig, CliffWalkingEnv, CliffWalkingSlipperyEnv
    from .frozen_lake import FrozenLake8x8Config, FrozenLake8x8Env, FrozenLakeConfig, FrozenLakeEnv
    from .ids import ENV_NAMES, GYM_IDS
    from .planner import plan
    from .taxi import TaxiConfig, TaxiEnv

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
