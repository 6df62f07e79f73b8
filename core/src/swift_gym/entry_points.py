"""The built-in plugin that registers every env of the `swift_gym.envs` entry-point group.

It reads metadata only: each entry point becomes a lazy registration that imports its class on
first use, so a broken or slow env package costs nothing until someone asks for it.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from .hookspecs import RegisterEnv, hookimpl

ENVS_GROUP = "swift_gym.envs"


@hookimpl
def swift_gym_register_envs(register: RegisterEnv) -> None:
    # `dist.name`, `dist.version` and `dist.metadata` each parse METADATA again: read it once per
    # distribution (entry points of one distribution share its object), not once per env
    sources: dict[int, tuple[object, str | None, str | None]] = {}  # the dist, kept alive
    for entry_point in entry_points(group=ENVS_GROUP):
        dist = entry_point.dist
        source = sources.get(id(dist))
        if source is None:
            metadata = dist.metadata if dist else None
            name, version = (metadata["Name"], metadata["Version"]) if metadata else (None, None)
            source = sources[id(dist)] = (dist, name, version)
        register(entry_point.name, entry_point.value, distribution=source[1], version=source[2])
