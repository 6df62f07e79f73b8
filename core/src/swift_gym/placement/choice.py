"""Where an episode's env is built: the operator's choice, read by the scheduler and `evaluate`.

A `Placement` opens each episode's env somewhere other than this process (`open`) and ends
what it started (`shutdown`); None means this process, where the caller builds envs from its
own registry as always. The only other place today is a Ray cluster (`ray.cluster`), chosen by
`SWIFT_GYM_RAY_ADDRESS` or `evaluate(ray_address=...)`: never by a dataset row. Nothing here
imports Ray unless it is chosen. (A served host is an env of its own, `openenv`, which a row
names; where each env's calls run inside a process is `runners`.)
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .ray.settings import address_from_environ

if TYPE_CHECKING:
    from ..env import Env
    from .ray.cluster import RayPlacement


class Placement(Protocol):
    """Where episodes' envs are built and played, away from this process's own registry."""

    async def open(self, env_name: str, env_config: Mapping[str, Any] | None) -> Env:
        """One episode's env of `env_name` with `env_config` (checked here first), or a
        stand-in that plays like one; waits while the place is full."""
        ...

    def shutdown(self) -> None:
        """End every env and actor this placement started (the caller is done with them)."""
        ...


def placement_for(address: str | None = None, envs: Iterable[str] = ()) -> Placement | None:
    """A run's placement (`evaluate`): on the Ray cluster at `address` (else
    `SWIFT_GYM_RAY_ADDRESS`), connected, and each of `envs` checked to fit a node
    (RaySettingError if one never could); None, importing no Ray, where neither is set. The
    caller shuts it down when the run ends."""
    address = address if address is not None else address_from_environ()
    if address is None:
        return None
    from .ray.cluster import RayPlacement

    placement = RayPlacement(address)
    placement.connect()
    try:
        for name in sorted(envs):
            placement.prepare(name)
    except BaseException:
        placement.shutdown()
        raise
    return placement


_process: RayPlacement | None = None
_process_lock = threading.Lock()
_failed: dict[str, Exception] = {}
"""Addresses this process could not connect to, and why: not tried again for every episode."""


def process_placement() -> Placement | None:
    """The process's placement when `SWIFT_GYM_RAY_ADDRESS` is set, else None (no Ray import).

    For the `swift_gym` scheduler: its actors are reused for the process's life (across
    batches) and killed when it exits."""
    global _process
    address = address_from_environ()
    if address is None:
        return None
    from .ray.cluster import RayPlacement

    with _process_lock:
        if _process is None or _process.address != address.strip():
            import atexit

            placement = RayPlacement(address)
            failure = _failed.get(placement.address)
            if failure is not None:  # ray.init waits minutes for an absent cluster: once
                raise failure
            try:
                placement.connect()
            except Exception as error:
                _failed[placement.address] = error
                raise
            _process = placement
            atexit.register(placement.shutdown)
        return _process
