"""The env registry: names to lazily loaded env classes.

Filled once per process through the `swift_gym_register_envs` hook. Names only ever resolve to
registered entries: a name from a dataset row is looked up, never imported, so
`env_config.name = "os:system"` is just an unknown env.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import logging
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from .env_names import EnvNames
from .errors import AmbiguousEnvError, EnvLoadError, InvalidConfigError, UnknownEnvError
from .hookspecs import RegisterEnv
from .plugins import (
    BUILTIN_PLUGINS,
    LoadedPlugins,
    PluginFilter,
    PluginInfo,
    call_each_plugin,
    contain,
    describe_error,
    load_plugins,
    normalize_distribution,
)
from .tools.use import TAKES_TOOLS, TOOL_USES
from .tools.use import problem as tool_use_problem

if TYPE_CHECKING:
    from .env import Env

logger = logging.getLogger("swift_gym")

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,199}")


@dataclass(frozen=True)
class EnvSpec:
    """A registered env, known without importing it."""

    name: str
    target: str
    """Where the class lives, as "module:attribute"."""
    distribution: str | None
    version: str | None
    plugin: str
    """The hook plugin that registered it."""
    _env: type[Env] | str = field(repr=False, compare=False)
    _description: str | None = field(default=None, repr=False, compare=False)
    _tool_use: str | None = field(default=None, repr=False, compare=False)

    @property
    def qualified_name(self) -> str:
        """`distribution:name`: the unambiguous form, valid wherever a name is."""
        return (
            f"{normalize_distribution(self.distribution)}:{self.name}"
            if self.distribution
            else self.name
        )

    @property
    def description(self) -> str | None:
        """The registration's description; for an entry point (which cannot give one) its
        class's docstring, read without importing it (`env_docs`); else its distribution's
        one-line summary."""
        if self._description:
            return self._description
        if self.plugin in BUILTIN_PLUGINS and isinstance(self._env, str):
            from .env_docs import docstring_line

            own = docstring_line(self._env)
            if own:
                return own
        return _summary(self.distribution) if self.distribution else None

    @property
    def tool_use(self) -> str | None:
        """Whether the env gives the model tools, one of `tools.use.TOOL_USES` ("always",
        "opt-in", "varies", "no"), or None when it declares nothing: its registration's
        `tool_use`, else a `tool_use = "..."` literal in its class's body, read without
        importing it (an entry point has no room for it). `swift-gym list` and the catalogue
        both read this."""
        if self._tool_use is not None:
            return self._tool_use
        if not isinstance(self._env, str):
            declared = getattr(self._env, "tool_use", None)
        else:
            from .env_docs import class_literal

            declared = class_literal(self._env, "tool_use")
        return declared if declared in TOOL_USES else None

    @property
    def takes_tools(self) -> bool:
        """Whether the env may take tool calls: it declares "always", "opt-in" or "varies"."""
        return self.tool_use in TAKES_TOOLS


@functools.cache
def _summary(distribution: str) -> str | None:
    """A distribution's one-line summary, read once per process (not once per env it has)."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        # email.message.Message's get; typeshed's PackageMetadata names it from Python 3.12 on
        summary: str | None = metadata(distribution).get("Summary")  # type: ignore[attr-defined]
        return summary
    except PackageNotFoundError:
        return None


def _target_of(env: Any) -> str:
    if isinstance(env, str):
        return env
    return f"{getattr(env, '__module__', '?')}:{getattr(env, '__qualname__', repr(env))}"


def _import_target(target: str) -> Any:
    module_name, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else ():
        value = getattr(value, part)
    return value


class Registry:
    """Env specs by name, with their loaded classes cached."""

    def __init__(
        self, plugin_filter: PluginFilter | None = None, loaded: LoadedPlugins | None = None
    ):
        self.plugin_filter = plugin_filter or PluginFilter.from_environ()
        self.loaded = loaded or load_plugins(self.plugin_filter)
        self.problems: list[str] = []
        """What went wrong while registering: a hook that raised, a bad name, a duplicate."""
        self._by_name: dict[str, list[EnvSpec]] = {}
        self._names: EnvNames | None = None
        self._classes: dict[EnvSpec, type[Env] | EnvLoadError] = {}
        self._lock = threading.Lock()
        self._collect()

    @property
    def plugins(self) -> list[PluginInfo]:
        """Third-party hook plugins, those that failed to load included."""
        return self.loaded.plugins

    def _collect(self) -> None:
        def register_for(source: PluginInfo) -> RegisterEnv:
            return partial(self._register, source)

        self.problems.extend(call_each_plugin(self.loaded, "swift_gym_register_envs", register_for))

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        logger.warning("swift-gym: %s", message)

    def _register(
        self,
        source: PluginInfo,
        name: str,
        env: type[Env] | str,
        *,
        description: str | None = None,
        distribution: str | None = None,
        version: str | None = None,
        tool_use: str | None = None,
    ) -> None:
        if distribution is None:
            distribution, version = source.distribution, source.version
        if not self.plugin_filter.allows(distribution):
            return
        origin = distribution or source.name
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            self._problem(
                f"{origin} registers an invalid env name {name!r}: use letters, digits, "
                "'_', '-' and '.' only"
            )
            return
        if not isinstance(env, str) and not isinstance(env, type):
            self._problem(
                f"{origin} registers env {name!r} as {env!r}: give a class or 'module:attr'"
            )
            return
        if (wrong := tool_use_problem(tool_use)) is not None:
            self._problem(f"{origin} registers env {name!r} with {wrong}; it declares none")
            tool_use = None
        spec = EnvSpec(
            name, _target_of(env), distribution, version, source.name, env, description, tool_use
        )
        entries = self._by_name.setdefault(name, [])
        if any(existing.distribution == distribution for existing in entries):
            self._problem(f"{origin} registers env {name!r} twice; the first registration is kept")
            return
        entries.append(spec)
        self._names = None

    def list(self) -> list[EnvSpec]:
        """Every registered env, sorted by name then distribution."""
        specs = [spec for entries in self._by_name.values() for spec in entries]
        return sorted(specs, key=lambda spec: (spec.name, spec.distribution or ""))

    def names(self) -> builtins.list[str]:  # `list` here is the method above
        """Names a user can type: bare where unique, `distribution:name` where two clash."""
        return list(self._env_names())

    def _env_names(self) -> EnvNames:
        """names(), built once: every unknown-env error shares it (and its did-you-mean index)."""
        if self._names is None:
            names = []
            for name, entries in sorted(self._by_name.items()):
                names.extend(
                    [name] if len(entries) == 1 else [spec.qualified_name for spec in entries]
                )
            self._names = EnvNames(names)
        return self._names

    def resolve(self, name: str) -> EnvSpec:
        """The spec for `name` or `distribution:name`; raises Unknown- or AmbiguousEnvError."""
        if not isinstance(name, str):
            raise UnknownEnvError(repr(name), self._env_names())
        distribution, _, bare = name.rpartition(":")
        entries = self._by_name.get(bare, [])
        if distribution:
            wanted = normalize_distribution(distribution)
            entries = [s for s in entries if normalize_distribution(s.distribution or "") == wanted]
        if not entries:
            raise UnknownEnvError(name, self._env_names())
        if len(entries) > 1:
            raise AmbiguousEnvError(bare, [spec.distribution or spec.plugin for spec in entries])
        return entries[0]

    def get_env_class(self, name: str) -> type[Env]:
        """The env class registered as `name`, imported on first use and cached."""
        spec = self.resolve(name)
        with self._lock:
            loaded = self._classes.get(spec)
            if loaded is None:
                loaded = self._classes[spec] = self._load(spec)
        if isinstance(loaded, EnvLoadError):
            raise loaded
        return loaded

    def _load(self, spec: EnvSpec) -> type[Env] | EnvLoadError:
        from .env import Env

        def failure(reason: str) -> EnvLoadError:
            return EnvLoadError(spec.name, spec.distribution, spec.version, spec.target, reason)

        try:
            value = _import_target(spec._env) if isinstance(spec._env, str) else spec._env
        except BaseException as error:  # report, with the distribution to fix, instead of crashing
            contain(error, f"importing env {spec.name!r} ({spec.target})")
            return failure(describe_error(error))
        if not (isinstance(value, type) and issubclass(value, Env)):
            return failure(f"{value!r} is not a subclass of swift_gym.Env")
        return value

    def make(self, name_or_env_config: str | Mapping[str, Any], /, **overrides: Any) -> Env:
        """A new env with a validated config, from a name or a dataset row's env_config."""
        name: Any  # a row's value: get_env_class refuses one that names no env
        if isinstance(name_or_env_config, str):
            name, env_config = name_or_env_config, dict(overrides)
        elif isinstance(name_or_env_config, Mapping):
            env_config = {**name_or_env_config, **overrides}
            name = env_config.get("name")
            if name is None:
                raise UnknownEnvError(None, self._env_names())
        else:
            raise TypeError(
                f"make() takes an env name or an env_config dict, not {name_or_env_config!r}"
            )
        env_class = self.get_env_class(name)
        try:
            return env_class(env_config)
        except InvalidConfigError as error:
            error.env_name = name
            raise


_default: Registry | None = None
_default_lock = threading.Lock()


def default_registry() -> Registry:
    """The process-wide registry, built from installed plugins on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Registry()
    return _default


def reload() -> Registry:
    """Rebuild the process-wide registry: after installing a package, or changing the filters."""
    global _default
    with _default_lock:
        _default = Registry()
    return _default


def list_envs() -> list[EnvSpec]:
    """Every installed env, without importing any of them."""
    return default_registry().list()


def get_env_class(name: str) -> type[Env]:
    """The env class for `name` (or `distribution:name`), imported on first use."""
    return default_registry().get_env_class(name)


def make(name_or_env_config: str | Mapping[str, Any], /, **overrides: Any) -> Env:
    """A validated env instance: `make("frozen_lake", seed=0)` or `make({"name": ..., ...})`."""
    return default_registry().make(name_or_env_config, **overrides)
