"""Run untrusted code in isolation: a one-shot `run`, a stateful `Session`, the `python` tool, a
`Workspace` (a work tree and shell commands for a whole episode) and its tools.

The sandbox knows nothing of envs: it runs code under `SandboxLimits` and returns what happened
(`RunResult`, `CallResult`). The default backend is bubblewrap (docs/sandbox.md says what it
isolates and what stops each attack); `PythonTool` is the thin layer an env offers, and
`operator_limits()` the limits an operator sets for envs whose configs come from rows.
"""

from __future__ import annotations

from ..lazy import attach

_EXPORTS = {
    "SandboxLimits": "limits",
    "operator_limits": "limits",
    "RunResult": "results",
    "CallResult": "results",
    "run": "oneshot",
    "SandboxPool": "pool",
    "Session": "session",
    "PythonTool": "python_tool",
    "Workspace": "workspace",
    "WorkspaceError": "workspace",
    "CommandResult": "workspace",
    "WorkspaceTools": "workspace_tools",
    "SandboxUnavailableError": "availability",
}
__all__ = [
    "CallResult",
    "CommandResult",
    "PythonTool",
    "RunResult",
    "SandboxLimits",
    "SandboxPool",
    "SandboxUnavailableError",
    "Session",
    "Workspace",
    "WorkspaceError",
    "WorkspaceTools",
    "operator_limits",
    "run",
]
__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
