"""What the operator and the env classes say about Ray placement; imports no Ray.

- `SWIFT_GYM_RAY_ADDRESS`: where the cluster is (`ray.init(address=...)`); unset or empty: off.
- `SWIFT_GYM_RAY_ENVS`: JSON, per env name, what replaces the class's declaration:
  `{"frozen_lake": {"resources": {"CPU": 0.5}, "episodes": 4}}`.
- The env-side operator settings below (`FORWARDED`), as this process has them, go to every
  actor it starts (Ray's `runtime_env`): an env on a worker node reads the same MCP servers,
  sandbox limits, tokens and plugin choices as it would here, and nothing is set on the nodes
  (the variables `SWIFT_GYM_OPENENV_TOKENS` names go too).
- An env class declares `Deployment.ray_resources` (what one actor holds: Ray's resource names,
  `CPU`, `GPU`, `memory` in bytes, or a custom one such as `sandbox`) and `Deployment.ray_episodes`
  (how many episodes one actor plays at once).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...deployment import deployment_of
from ...errors import SwiftGymError, short_repr

ADDRESS_VARIABLE = "SWIFT_GYM_RAY_ADDRESS"
ENVS_VARIABLE = "SWIFT_GYM_RAY_ENVS"
MAX_EPISODES = 10_000
"""The most episodes one actor may play at once."""
FORWARDED = (
    "SWIFT_GYM_MCP_SERVERS",
    "SWIFT_GYM_SANDBOX_LIMITS",
    "SWIFT_GYM_BWRAP",
    "SWIFT_GYM_VERIFIERS_TASKSETS",
    "SWIFT_GYM_VERIFIERS_NO_KEY",
    "SWIFT_GYM_OPENENV_TOKENS",
    "SWIFT_GYM_OPENENV_INSECURE_TOKENS",
    "SWIFT_GYM_LOAD_PLUGINS",
    "SWIFT_GYM_DISABLE_PLUGINS",
    "SWIFT_GYM_SLOW_PLUGIN_SECONDS",
)
"""The settings an env reads where it runs. Not the Ray ones (an actor never places envs
itself), not SWIFT_GYM_TRAJECTORIES (the caller writes its own records), not the client's
SWIFT_GYM_API_KEY. Their values travel in the actor's `runtime_env`, which whoever can read the
cluster's actor table can read too: the operator's cluster is trusted with the operator's
settings."""
_RESOURCE = re.compile(r"[A-Za-z_][A-Za-z0-9_.:\-]{0,99}")
TOKENS_VARIABLE = "SWIFT_GYM_OPENENV_TOKENS"
"""The `openenv` env's token mapping (`remote.tokens`), forwarded with the variables it names."""
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")


class RaySettingError(SwiftGymError, ValueError):
    """The operator's Ray setting, or an env class's declaration, cannot be used."""


@dataclass(frozen=True)
class ActorShape:
    """What one actor of an env holds, and how many of its episodes it plays at once."""

    resources: tuple[tuple[str, float], ...]
    episodes: int
    env_vars: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """The `FORWARDED` settings the actors get (kept out of the repr: some are secrets)."""

    def options(self) -> dict[str, Any]:
        """The resources as `ActorClass.options(...)` takes them."""
        options: dict[str, Any] = {"num_cpus": 0}  # Ray's default holds none while running
        custom: dict[str, float] = {}
        for name, amount in self.resources:
            if name == "CPU":
                options["num_cpus"] = amount
            elif name == "GPU":
                options["num_gpus"] = amount
            elif name == "memory":
                options["memory"] = int(amount)
            else:
                custom[name] = amount
        if custom:
            options["resources"] = custom
        if self.env_vars:
            options["runtime_env"] = {"env_vars": dict(self.env_vars)}
        return options


def address_from_environ() -> str | None:
    """The cluster's address from `SWIFT_GYM_RAY_ADDRESS`; None when unset or blank (off)."""
    value = os.environ.get(ADDRESS_VARIABLE, "").strip()
    return value or None


def check_address(address: Any) -> str:
    if not isinstance(address, str) or not address.strip() or len(address) > 500:
        raise RaySettingError(
            f"ray address {short_repr(address, 80)}: give what ray.init(address=...) takes: "
            "auto, HOST:PORT or ray://HOST:PORT"
        )
    return address.strip()


def shape_of(env_name: str, env_class: type) -> ActorShape:
    """The actor shape of `env_name`: the operator's override if any, else the class's."""
    override = _overrides().get(env_name, {})
    where = f"{ENVS_VARIABLE}[{env_name!r}]"
    resources = override.get("resources")
    if resources is None:
        resources, where_resources = (
            deployment_of(env_class).ray_resources,
            (f"{env_class.__name__}.ray_resources"),
        )
    else:
        where_resources = f"{where}.resources"
    episodes = override.get("episodes")
    where_episodes = f"{where}.episodes"
    if episodes is None:
        episodes = deployment_of(env_class).ray_episodes
        where_episodes = f"{env_class.__name__}.ray_episodes"
    return ActorShape(
        _resources(resources, where_resources),
        _episodes(episodes, where_episodes),
        forwarded_environ(),
    )


def forwarded_environ() -> tuple[tuple[str, str], ...]:
    """The `FORWARDED` settings this process has, for its actors, and the token variables
    `SWIFT_GYM_OPENENV_TOKENS` names (an `openenv` env on a node reads its token from there)."""
    names = [name for name in FORWARDED if name in os.environ]
    named = _token_variables(os.environ.get(TOKENS_VARIABLE, ""))
    names += [name for name in dict.fromkeys(named) if name in os.environ and name not in names]
    return tuple((name, os.environ[name]) for name in names)


def _token_variables(mapping: str) -> list[str]:
    """The variables a `host[:port]=VARIABLE,...` mapping names; none if an entry is not of
    that form. Only the names: the `openenv` env checks the whole mapping where it runs
    (`remote.tokens`, a room above this one) and refuses a wrong one at reset, saying why."""
    names = []
    for entry in mapping.split(","):
        if not entry.strip():
            continue
        target, sep, variable = (part.strip() for part in entry.partition("="))
        if not (target and sep and _VARIABLE.fullmatch(variable)):
            return []
        names.append(variable)
    return names


def _overrides() -> dict[str, dict[str, Any]]:
    raw = os.environ.get(ENVS_VARIABLE, "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as error:
        raise RaySettingError(f"{ENVS_VARIABLE} is not JSON: {error}") from None
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise RaySettingError(
            f"{ENVS_VARIABLE}: give an object of env names, each with `resources` and/or "
            'episodes, e.g. {"frozen_lake": {"resources": {"CPU": 1}, "episodes": 8}}'
        )
    for name, entry in value.items():
        unknown = set(entry) - {"resources", "episodes"}
        if unknown:
            raise RaySettingError(
                f"{ENVS_VARIABLE}[{name!r}]: unknown keys {sorted(unknown)}; allowed: "
                "resources, episodes"
            )
    return value


def _resources(value: Any, where: str) -> tuple[tuple[str, float], ...]:
    if not isinstance(value, Mapping):
        raise RaySettingError(f"{where}: give a mapping of resource names to amounts")
    checked = []
    for name, amount in value.items():
        if not isinstance(name, str) or not _RESOURCE.fullmatch(name):
            raise RaySettingError(f"{where}: {short_repr(name, 60)} is no resource name")
        if (
            isinstance(amount, bool)
            or not isinstance(amount, (int, float))
            or not 0 <= amount < 2**53
        ):
            raise RaySettingError(
                f"{where}[{name!r}]: {short_repr(amount, 40)}, not an amount >= 0"
            )
        checked.append((name, float(amount)))
    return tuple(sorted(checked))


def _episodes(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_EPISODES:
        raise RaySettingError(
            f"{where}: {short_repr(value, 40)}, not a whole number from 1 to {MAX_EPISODES}"
        )
    return value
