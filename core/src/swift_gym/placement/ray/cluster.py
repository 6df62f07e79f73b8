"""`RayPlacement`: connects to the cluster and opens episodes there, one actor pool per env.

A `placement.choice.Placement`: the `swift_gym` scheduler and `evaluate` get one from
`process_placement()` and `placement_for()` when the operator sets `SWIFT_GYM_RAY_ADDRESS`.

`open(name, env_config)` checks the config in the calling process (a row's mistake is caught
before anything is sent), takes a slot on an actor of that env (waiting while the cluster is
full), and has the actor build the env from the name and the config: a `RayEnv`. `shutdown()`
kills every actor the placement started, and disconnects if it connected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import uuid
from collections.abc import Mapping
from typing import Any

from ...config import validate_config
from ...errors import EnvUnavailableError
from ...install_hints import extra_hint
from .pool import ActorLost, ActorPool
from .settings import RaySettingError, check_address, shape_of

logger = logging.getLogger("swift_gym")


class RayPlacement:
    """Episodes' envs on the Ray cluster at `address` (see the module docstring)."""

    def __init__(self, address: str):
        self.address = check_address(address)
        self._pools: dict[str, ActorPool] = {}
        self._lock = threading.Lock()
        self._connected_here = False
        self._actor_class: Any = None

    def connect(self) -> None:
        """Join the cluster (unless this process already has); EnvUnavailableError if none."""
        try:
            import ray
        except ImportError:
            raise RaySettingError(
                f"SWIFT_GYM_RAY_ADDRESS={self.address!r} asks for envs on Ray, and Ray is not "
                f"installed here: {extra_hint('ray')}"
            ) from None

        from .host import EnvHost

        if not ray.is_initialized():
            try:
                ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING)
            except Exception as error:
                raise EnvUnavailableError(
                    f"no Ray cluster at {self.address!r} (SWIFT_GYM_RAY_ADDRESS): "
                    f"{type(error).__name__}: {str(error)[:300]}"
                ) from None
            self._connected_here = True
        self._actor_class = ray.remote(EnvHost)

    async def open(self, env_name: str, env_config: Mapping[str, Any] | None) -> Any:
        """A `RayEnv` for one episode of `env_name` with `env_config`."""
        from ...errors import InvalidConfigError
        from ...registry import default_registry
        from .env import RayEnv, RayEnvError

        if self._actor_class is None:
            self.connect()
        raw = dict(env_config or {})
        env_class = default_registry().get_env_class(env_name)
        try:
            config = validate_config(env_class.config_model, raw, env_name)
        except InvalidConfigError as error:
            error.env_name = env_name
            raise
        pool = self._pool(env_name, env_class)
        while True:
            try:
                actor = await pool.acquire()
            except ActorLost as error:
                raise RayEnvError(str(error)) from None
            env = RayEnv(env_name, raw, config, pool, actor, -1, None)
            token = uuid.uuid4().hex
            try:
                env._key, env._hint, _ = await env._on(actor, "open", raw, token)
            except RayEnvError:
                continue  # the actor died before this episode began: another one
            except asyncio.CancelledError:  # the actor opens it all the same: it must close it
                _abandon(actor, token)
                pool.release(actor)
                raise
            except BaseException:
                pool.release(actor)
                raise
            return env

    def prepare(self, env_name: str) -> None:
        """Check before any episode that `env_name`'s actors fit a node of the cluster
        (RaySettingError if not), and make its pool."""
        from ...registry import default_registry

        if self._actor_class is None:
            self.connect()
        self._pool(env_name, default_registry().get_env_class(env_name))

    def _pool(self, env_name: str, env_class: type) -> ActorPool:
        with self._lock:
            pool = self._pools.get(env_name)
            if pool is None:
                shape = shape_of(env_name, env_class)
                _check_fits(env_name, shape.options())
                pool = self._pools[env_name] = ActorPool(env_name, shape, self._actor_class)
            return pool

    def pools(self) -> dict[str, ActorPool]:
        with self._lock:
            return dict(self._pools)

    def shutdown(self) -> None:
        """Kill every actor started here; disconnect if `connect` connected."""
        with self._lock:
            pools = list(self._pools.values())
            self._pools.clear()
        for pool in pools:
            pool.shutdown()
        if self._connected_here:
            import ray

            ray.shutdown()
            self._connected_here = False
        self._actor_class = None


def _abandon(actor: Any, token: str) -> None:
    """Tell `actor` to close the episode `token` names (sent, not awaited: the caller is being
    cancelled)."""
    with contextlib.suppress(Exception):  # the actor or the connection is gone: nothing open
        actor.handle.abandon.remote(token)


def _check_fits(env_name: str, options: dict[str, Any]) -> None:
    """RaySettingError when no live node could ever hold one actor of `env_name` (Ray would
    keep it pending forever: every episode would wait)."""
    import ray

    wanted = {"CPU": options.get("num_cpus", 0), "GPU": options.get("num_gpus", 0)}
    if "memory" in options:
        wanted["memory"] = options["memory"]
    wanted.update(options.get("resources", {}))
    wanted = {name: amount for name, amount in wanted.items() if amount}
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    for node in nodes:
        have = node.get("Resources", {})
        if all(have.get(name, 0) >= amount for name, amount in wanted.items()):
            return
    raise RaySettingError(
        f"env {env_name!r} on Ray: no node of the cluster has {wanted} for one actor "
        "(the env's ray_resources, or SWIFT_GYM_RAY_ENVS): every episode would wait forever"
    )
