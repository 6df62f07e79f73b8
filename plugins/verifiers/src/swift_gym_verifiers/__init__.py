"""verifiers 0.4 environments as swift-gym envs: `verifiers.<taskset id>`.

Each installed verifiers environment (`discover`) is registered by the hook plugin (`plugin`)
as an `AgentEnv` (`env`) whose episode is the environment's own rollout (`episode`): every
model call its seat makes reaches the trainer's policy through the episode's client
(`bridge`), and the reward is the environment's own score. A row picks the task (`config`);
the taskset's config is the operator's (`settings`).

This module is also a verifiers harness plugin: verifiers loads a harness by importing the
package its id names and reading `__all__`, so `SwiftGymHarness` (`harness`, which plays every
seat in process) is exported here, lazily: importing this package imports no verifiers.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SwiftGymHarness"]


def __getattr__(name: str) -> Any:
    if name == "SwiftGymHarness":
        from .harness import SwiftGymHarness

        return SwiftGymHarness
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
