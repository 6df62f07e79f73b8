"""The built-in plugin that registers every env of the `swift_gym.envs` entry-point group.

It reads metadata only: each entry point becomes a lazy registration that imports its class on
first use, so a broken or slow env package costs nothing until someone asks for it.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from .hookspecs import hookimpl

if TYPE_CHECKING:
    from .registry import RegisterEnv

ENVS_GROUP = "swift_gym.envs"


@hookimpl
def swift_gym_register_envs(register: RegisterEnv) -> None:
    for entry_point in entry_points(group=ENVS_GROUP):
        # `dist.name` and `dist.version` each parse METADATA again: read it once
        metadata = entry_point.dist.metadata if entry_point.dist else None
        register(
            entry_point.name,
            entry_point.value,
            distribution=metadata["Name"] if metadata else None,
            version=metadata["Version"] if metadata else None,
        )
