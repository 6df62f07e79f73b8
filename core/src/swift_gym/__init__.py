"""swift-gym: validated, discoverable gym envs for ms-swift.

Attributes load on first use (PEP 562), so `import swift_gym` costs a few milliseconds and
pydantic, pluggy and the entry-point scan are paid only by the code that needs them.

The rooms, bottom up: the contract (`env`, `config`, `json_config`, `errors`; for tools
`tools` (a package), `steps`, and `replies` to read a reply), the hooks and
registries (`hookspecs`, `plugins`, `registry` for envs, `rewards` for reward functions), shared
plumbing (`rows`, `json_text`, `output_files`), the library parts (`evaluation`: `evaluate(...)`;
`testing`: the conformance kit; `sandbox`: model code run in isolation), and the two faces on
top (`ms_swift` adapters, the `cli` command). Nothing below imports anything above
(import-linter's contracts in the repository's pyproject.toml, run by `tox -e lint`).
"""

from __future__ import annotations

from .lazy import attach

__version__ = "0.1.0"

_EXPORTS = {
    "Env": "env",
    "Message": "env",
    "EnvConfig": "config",
    "Deployment": "deployment",
    "validate_config": "config",
    "JsonObject": "json_config",
    "SwiftGymError": "errors",
    "InvalidConfigError": "errors",
    "ConfigProblem": "errors",
    "UnknownEnvError": "errors",
    "AmbiguousEnvError": "errors",
    "EnvLoadError": "errors",
    "did_you_mean": "errors",
    "printable": "errors",
    "short_repr": "errors",
    "EnvSpec": "registry",
    "list_envs": "registry",
    "get_env_class": "registry",
    "make": "registry",
    "reply_text": "replies",
    "tool_calls": "replies",
    "ToolCall": "tools.toolset",
    "ToolResult": "tools.toolset",
    "ToolSet": "tools.toolset",
    "offered_tools": "tools.toolset",
    "InvalidToolsError": "errors",
    "StepResult": "steps",
    "as_step_result": "episode.checks",
    "InvalidStepError": "errors",
    "hookimpl": "hookspecs",
    "evaluate": "evaluation",
    "evaluate_async": "evaluation",
    "EvalResult": "evaluation",
    "AgentEnv": "agent",
    "AgentResult": "agent",
}

__all__ = [
    "AgentEnv",
    "AgentResult",
    "AmbiguousEnvError",
    "ConfigProblem",
    "Deployment",
    "Env",
    "EnvConfig",
    "EnvLoadError",
    "EnvSpec",
    "EvalResult",
    "InvalidConfigError",
    "InvalidStepError",
    "InvalidToolsError",
    "JsonObject",
    "Message",
    "StepResult",
    "SwiftGymError",
    "ToolCall",
    "ToolResult",
    "ToolSet",
    "UnknownEnvError",
    "__version__",
    "as_step_result",
    "did_you_mean",
    "evaluate",
    "evaluate_async",
    "get_env_class",
    "hookimpl",
    "list_envs",
    "make",
    "offered_tools",
    "printable",
    "reply_text",
    "short_repr",
    "tool_calls",
    "validate_config",
]

TYPE_CHECKING = False  # not imported from typing: `typing` alone costs more than this package
if TYPE_CHECKING:
    from .agent import AgentEnv, AgentResult
    from .config import EnvConfig, validate_config
    from .deployment import Deployment
    from .env import Env, Message
    from .episode.checks import as_step_result
    from .errors import (
        AmbiguousEnvError,
        ConfigProblem,
        EnvLoadError,
        InvalidConfigError,
        InvalidStepError,
        InvalidToolsError,
        SwiftGymError,
        UnknownEnvError,
        did_you_mean,
        printable,
        short_repr,
    )
    from .evaluation import EvalResult, evaluate, evaluate_async
    from .hookspecs import hookimpl
    from .json_config import JsonObject
    from .registry import EnvSpec, get_env_class, list_envs, make
    from .replies import reply_text, tool_calls
    from .steps import StepResult
    from .tools.toolset import ToolCall, ToolResult, ToolSet, offered_tools


__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
