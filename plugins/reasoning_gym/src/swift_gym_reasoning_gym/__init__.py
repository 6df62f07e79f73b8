"""reasoning-gym's procedural reasoning tasks for swift-gym, each registered as
`reasoning_gym.<task>`.

The hook plugin `swift_gym_reasoning_gym.plugin` registers every task from the static list in
`ids`, so listing them imports nothing of reasoning-gym; attributes here load on first use for
the same reason.
"""

from __future__ import annotations

from swift_gym.lazy import attach

__version__ = "0.1.0"

_EXPORTS = {
    "ENV_NAMES": "ids",
    "TASKS": "ids",
    "VERIFIER_SCORED": "ids",
    "ReasoningGymConfig": "derive",
    "ReasoningGymEnv": "env",
    "VerifierScoredEnv": "env",
    "config_model": "derive",
    "env_class": "env",
    "extract_answer": "answers",
}

__all__ = [
    "ENV_NAMES",
    "TASKS",
    "VERIFIER_SCORED",
    "ReasoningGymConfig",
    "ReasoningGymEnv",
    "VerifierScoredEnv",
    "__version__",
    "config_model",
    "env_class",
    "extract_answer",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .answers import extract_answer
    from .derive import ReasoningGymConfig, config_model
    from .env import ReasoningGymEnv, VerifierScoredEnv, env_class
    from .ids import ENV_NAMES, TASKS, VERIFIER_SCORED

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
