"""swift-gym: validated, discoverable gym envs for ms-swift.

Attributes load on first use (PEP 562), so `import swift_gym` costs a few milliseconds and
pydantic, pluggy and the entry-point scan are paid only by the code that needs them.

The rooms, bottom up: the contract (`env`, `config`, `json_config`, `errors`), the hooks and
registries (`hookspecs`, `plugins`, `registry` for envs, `rewards` for reward functions), shared
plumbing (`rows`, `json_text`, `output_files`), the library parts (`evaluation`: `evaluate(...)`;
`testing`: the conformance kit), and the two faces on top (`ms_swift` adapters, the `cli`
command). Nothing below imports anything above (core/tests/test_layers.py checks it).
"""

from __future__ import annotations

from ._lazy import attach

__version__ = "0.1.0"

_EXPORTS = {
    "Env": "env",
    "Message": "env",
    "EnvConfig": "config",
    "validate_config": "config",
    "JsonObject": "json_config",
    "SwiftGymError": "errors",
    "InvalidConfigError": "errors",
    "ConfigProblem": "errors",
    "UnknownEnvError": "errors",
    "AmbiguousEnvError": "errors",
    "EnvLoadError": "errors",
    "EnvSpec": "registry",
    "list_envs": "registry",
    "get_env_class": "registry",
    "make": "registry",
    "reply_text": "replies",
    "hookimpl": "hookspecs",
    "evaluate": "evaluation",
    "evaluate_async": "evaluation",
    "EvalResult": "evaluation",
}

__all__ = [
    "AmbiguousEnvError",
    "ConfigProblem",
    "Env",
    "EnvConfig",
    "EnvLoadError",
    "EnvSpec",
    "EvalResult",
    "InvalidConfigError",
    "JsonObject",
    "Message",
    "SwiftGymError",
    "UnknownEnvError",
    "__version__",
    "evaluate",
    "evaluate_async",
    "get_env_class",
    "hookimpl",
    "list_envs",
    "make",
    "reply_text",
    "validate_config",
]

TYPE_CHECKING = False  # not imported from typing: `typing` alone costs more than this package
if TYPE_CHECKING:
    from .config import EnvConfig, validate_config
    from .env import Env, Message
    from .errors import (
        AmbiguousEnvError,
        ConfigProblem,
        EnvLoadError,
        InvalidConfigError,
        SwiftGymError,
        UnknownEnvError,
    )
    from .evaluation import EvalResult, evaluate, evaluate_async
    from .hookspecs import hookimpl
    from .json_config import JsonObject
    from .registry import EnvSpec, get_env_class, list_envs, make
    from .replies import reply_text


__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
