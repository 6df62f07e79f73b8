"""Which env a session plays, with which config: the server's defaults, the reset's data, the
allow list, checked exactly as a dataset row is (`rows.RowChecker`).

A reset's data comes from the network, so names in it only ever resolve to the envs served: the
default env and the allow list, or, with neither, any installed env that may be served without
being named. Two kinds of env are served only when the allow list names them (a default env
too), since a client's reset would make the server act with what is the operator's:
`Deployment.reaches_network` (`openenv` connects wherever the client's env_config says, with the
server's variables at hand) and `uses_operator_services` (`mcp_tools` starts the operator's
MCP servers). A name not served is refused without listing what is installed, and every problem
comes back as one message naming the field.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..config import SEED_MAX
from ..deployment import deployment_of
from ..errors import (
    AmbiguousEnvError,
    InvalidConfigError,
    SwiftGymError,
    UnknownEnvError,
    short_repr,
)
from ..rows import RowChecker, problem_fields
from .protocol import RESET_FIELDS, VALIDATION_ERROR, ProtocolError

if TYPE_CHECKING:
    from ..registry import EnvSpec, Registry

logger = logging.getLogger("swift_gym.serving")

MAX_EPISODE_ID = 200
SERVED_WHEN_ALLOWED = (
    ("reaches_network", "it reaches the network", "connect wherever it says"),
    (
        "uses_operator_services",
        "it starts the operator's processes or reaches the operator's hosts",
        "start those processes or reach those hosts",
    ),
)
"""The `Deployment` traits that keep an env from being served unless `--allow` names it:
(trait, why, what a client's reset could make the server do)."""


class EnvNotAllowedError(SwiftGymError, ValueError):
    """The default env is served only when named by the allow list, and it is not."""

    def __init__(self, name: str, why: str, could: str):
        super().__init__(
            f"env {short_repr(name)}: {why}, so a client's reset could make this server "
            f"{could}; if that is meant, serve it with swift-gym serve {name} --allow {name}"
        )


class EnvCatalogue:
    """The envs a server plays and their defaults.

    `default_env` (the NAME of `swift-gym serve NAME`) is played when a reset names none, with
    `defaults` (`--set`) under its env_config. A reset may name the default env and the envs of
    `allow`; with neither, any installed env but those served only when allowed
    (`SERVED_WHEN_ALLOWED`). Those are served only if `allow` names them (a default env that is
    one and is not named raises `EnvNotAllowedError`). Unknown names raise `UnknownEnvError` at
    once.
    """

    def __init__(
        self,
        registry: Registry,
        default_env: str | None = None,
        defaults: Mapping[str, Any] | None = None,
        allow: Iterable[str] = (),
    ):
        self.registry = registry
        self.default_env = default_env
        self.defaults = dict(defaults or {})
        self.default_spec = registry.resolve(default_env) if default_env else None
        named = {registry.resolve(name) for name in allow}
        self.allowed: set[EnvSpec] | None = None
        """The envs served, or None: any installed env not served only when allowed."""
        if self.default_spec is not None:
            reason = self.served_when_allowed(self.default_spec.name)
            if self.default_spec not in named and reason is not None:
                raise EnvNotAllowedError(self.default_spec.name, *reason)
            self.allowed = {*named, self.default_spec}
        elif named:
            self.allowed = named
        self._checker = RowChecker(registry, default_env, build=False)
        self._never_blocks: dict[str, bool] = {}
        """By env spec name, so its size is bounded by what is installed."""
        self._told: set[str] = set()
        """Env spec names a refused reset asked for, logged once each."""

    def requested_env(self, data: Mapping[str, Any]) -> str | None:
        """The env a reset's data names (or the default env), unchecked: enough to choose where
        the reset runs; `env_config` checks it there."""
        given = data.get("env_config")
        if given is None:
            given = {}
        name = given.get("name", self.default_env) if isinstance(given, Mapping) else None
        return name if isinstance(name, str) else None

    def never_blocks(self, name: str) -> bool:
        """Whether served env `name` declares `never_blocks`; False for a name this server
        does not play or cannot load (the reset then fails on a thread, saying why)."""
        try:
            spec = self.registry.resolve(name)
        except (UnknownEnvError, AmbiguousEnvError):
            return False
        if self.allowed is not None and spec not in self.allowed:
            return False
        known = self._never_blocks.get(spec.name)
        if known is None:
            try:
                env_class = self.registry.get_env_class(spec.name)
            except Exception:
                return False
            declared = deployment_of(env_class).never_blocks is True
            known = self._never_blocks[spec.name] = declared
        return known

    def served_when_allowed(self, name: str) -> tuple[str, str] | None:
        """`(why, what a client could make the server do)` if env `name` is served only when
        `--allow` names it (`SERVED_WHEN_ALLOWED`), else None. Loads the env's class."""
        traits = deployment_of(self.registry.get_env_class(name))
        for trait, why, could in SERVED_WHEN_ALLOWED:
            if getattr(traits, trait) is not False:  # any value but False counts
                return why, could
        return None

    def withheld_builtins(self) -> list[str]:
        """The core's own envs (`openenv`, `mcp_tools`) this server would refuse for want of
        `--allow`, for the ready line; other packages' envs are checked when a reset names one
        (loading every installed env class at start would cost seconds)."""
        withheld = []
        for spec in self.registry.list():
            if spec.distribution != CORE_DISTRIBUTION:
                continue
            if self.allowed is not None and spec in self.allowed:
                continue
            try:
                if self.served_when_allowed(spec.qualified_name) is not None:
                    withheld.append(spec.name)
            except Exception:  # not loadable here (an extra missing): not served anyway
                continue
        return withheld

    @property
    def allowed_names(self) -> list[str] | None:
        """Names a reset may give, or None when any installed env may be played but those
        served only when allowed."""
        if self.allowed is None:
            return None
        return sorted(spec.name for spec in self.allowed)

    def check_defaults(self) -> None:
        """Raise `InvalidConfigError` if the default env's config (`--set`) does not validate."""
        if self.default_env is None:
            return
        check = self._checker.check({"name": self.default_env, **self.defaults})
        if not check.ok:
            raise InvalidConfigError(check.env, check.problems, check.omitted)

    def env_config(self, data: Mapping[str, Any]) -> tuple[str, dict[str, Any], str | None]:
        """`(env name, validated env_config, episode id or None)` for a reset's data; raises
        `ProtocolError` (VALIDATION_ERROR) naming every field that is wrong."""
        unknown = [key for key in data if key not in RESET_FIELDS]
        if unknown:
            raise _invalid(
                f"unknown reset field {short_repr(unknown[0])}: a reset takes "
                + ", ".join(RESET_FIELDS)
            )
        given = data.get("env_config", {})
        if given is None:
            given = {}
        if not isinstance(given, Mapping):
            raise _invalid(f"env_config must be a JSON object, not {short_repr(given)}")
        episode_id = data.get("episode_id")
        if episode_id is not None and not (
            isinstance(episode_id, str) and 0 < len(episode_id) <= MAX_EPISODE_ID
        ):
            raise _invalid(f"episode_id must be a string of 1 to {MAX_EPISODE_ID} characters")
        env_config = self._merged(dict(given))
        if "seed" in data:
            seed = data["seed"]
            if "seed" in given and given["seed"] != seed:
                raise _invalid(
                    f"seed {short_repr(seed)} and env_config.seed "
                    f"{short_repr(env_config['seed'])} differ: give one"
                )
            if not (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= SEED_MAX):
                raise _invalid(
                    f"seed must be an integer from 0 to 2**64-1 (got {short_repr(seed)})"
                )
            env_config["seed"] = seed
        name = env_config.get("name", self.default_env)
        self._check_name(name, "name" in env_config)
        check = self._checker.check(env_config)
        if not check.ok:
            error = InvalidConfigError(check.env, check.problems, check.omitted)
            raise _invalid(str(error), problems=[problem_fields(p) for p in check.problems])
        env_config.setdefault("name", name)
        return name, env_config, episode_id

    def _merged(self, given: dict[str, Any]) -> dict[str, Any]:
        """The reset's env_config over the defaults, when it plays the default env."""
        name = given.get("name")
        if self.default_spec is None:
            return given
        if name is not None and name != self.default_env:
            try:
                if self.registry.resolve(name) != self.default_spec:
                    return given  # another env: the defaults are fields of the default one
            except (UnknownEnvError, AmbiguousEnvError):
                return given  # reported by the name check
        return {**self.defaults, **given}

    def _check_name(self, name: Any, given: bool) -> None:
        if name is None:
            if given:
                raise _invalid("env_config.name is null: drop the key or name the env")
            raise _invalid(
                "no env name: this server has no default env (swift-gym serve NAME), so the "
                "reset's env_config must name one"
            )
        if not isinstance(name, str):
            raise _invalid(f"env_config.name must be a string (got {short_repr(name)})")
        try:
            spec = self.registry.resolve(name)
        except UnknownEnvError:  # never list what is installed: only what is served, if bounded
            raise _invalid(self._not_served(name)) from None
        except AmbiguousEnvError as error:
            if self.allowed is not None:
                raise _invalid(self._not_served(name)) from None
            raise _invalid(f"env_config.name: {error}") from None
        if self.allowed is not None:
            if spec not in self.allowed:
                raise _invalid(self._not_served(name))
            return
        reason = self.served_when_allowed(name)
        if reason is not None:
            why = reason[0]
            if spec.name not in self._told:  # once per env: the operator learns what was asked
                self._told.add(spec.name)
                logger.warning(
                    "swift-gym serve: refused a reset of env %s: %s; swift-gym serve --allow %s "
                    "serves it",
                    spec.name,
                    why,
                    spec.name,
                )
            raise _invalid(
                f"env_config.name: env {short_repr(name)} is not served here: {why}, so this "
                f"server plays it only if started with swift-gym serve --allow {spec.name}"
            )

    def _not_served(self, name: str) -> str:
        message = f"env_config.name: env {short_repr(name)} is not served here"
        if self.allowed is None:
            return message
        return f"{message}; this server plays " + ", ".join(self.allowed_names or [])


CORE_DISTRIBUTION = "swift-gym"


def _invalid(message: str, **extra: Any) -> ProtocolError:
    return ProtocolError(VALIDATION_ERROR, message, **extra)
