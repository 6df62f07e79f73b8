"""The package's swift-gym hook plugin (entry point group `swift_gym.plugins`).

It registers `verifiers.<id>` for every installed verifiers environment that `discover`
finds from metadata and source text, naming each class by "module:attribute": listing
imports neither verifiers (about 3 s) nor any environment.
"""

from __future__ import annotations

from typing import Any

import swift_gym

from .discover import installed
from .envs import attribute

PREFIX = "verifiers."


def env_name(taskset_id: str) -> str:
    """The swift-gym name of a taskset: `verifiers.sg_reverse`."""
    return PREFIX + taskset_id


@swift_gym.hookimpl
def swift_gym_register_envs(register: Any) -> None:
    for taskset_id, found in installed().items():
        source = f"{found.distribution} {found.version}"
        summary = f": {found.summary}" if found.summary else ""
        register(
            env_name(taskset_id),
            f"swift_gym_verifiers.envs:{attribute(taskset_id)}",
            description=f"verifiers taskset {taskset_id} ({source}){summary}"[:300],
            tool_use="varies",  # the taskset's own tool servers, if it has any
        )
