"""Loads hook plugins into one pluggy manager, each in isolation.

`SWIFT_GYM_LOAD_PLUGINS` (unset: all; empty: none; "a,b": only those distributions) and
`SWIFT_GYM_DISABLE_PLUGINS` ("a,b": skip those) choose which installed distributions count, for
hook plugins and for the envs they register alike. A plugin that fails to import is recorded
with its distribution and the original error, and the others load as usual.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

import pluggy

from . import hookspecs
from .hookspecs import PROJECT_NAME

PLUGINS_GROUP = "swift_gym.plugins"
LOAD_VARIABLE = "SWIFT_GYM_LOAD_PLUGINS"
DISABLE_VARIABLE = "SWIFT_GYM_DISABLE_PLUGINS"
BUILTIN_PLUGINS = ("swift_gym.entry_points",)

logger = logging.getLogger(PROJECT_NAME)


def normalize_distribution(name: str) -> str:
    """PEP 503 form of a distribution name, so `Swift_Gym.X` and `swift-gym-x` match."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _names(value: str) -> frozenset[str]:
    return frozenset(normalize_distribution(part) for part in value.split(",") if part.strip())


@dataclass(frozen=True)
class PluginFilter:
    """Which distributions may contribute plugins and envs, read from the environment."""

    only: frozenset[str] | None = None
    disabled: frozenset[str] = frozenset()

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> PluginFilter:
        environ = os.environ if environ is None else environ
        load = environ.get(LOAD_VARIABLE)
        only = None if load is None else _names(load)
        return cls(only=only, disabled=_names(environ.get(DISABLE_VARIABLE, "")))

    def allows(self, distribution: str | None) -> bool:
        """True for code outside any distribution, and for every distribution chosen."""
        if distribution is None:
            return True
        name = normalize_distribution(distribution)
        if name in self.disabled:
            return False
        return self.only is None or name in self.only


@dataclass(frozen=True)
class PluginInfo:
    """A hook plugin: where it comes from, and why it failed if it did."""

    name: str
    distribution: str | None
    version: str | None
    error: str | None = None


@dataclass
class LoadedPlugins:
    """A plugin manager with every allowed plugin registered, and the record of each."""

    manager: pluggy.PluginManager
    plugins: list[PluginInfo]
    sources: dict[str, PluginInfo]
    """Plugin name -> info for the plugins that loaded: which distribution registered what."""


def load_plugins(plugin_filter: PluginFilter | None = None) -> LoadedPlugins:
    """A fresh plugin manager: the built-in plugins, then each allowed `swift_gym.plugins` entry."""
    import importlib

    plugin_filter = plugin_filter or PluginFilter.from_environ()
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    plugins: list[PluginInfo] = []
    sources: dict[str, PluginInfo] = {}
    for module_name in BUILTIN_PLUGINS:
        manager.register(importlib.import_module(module_name), name=module_name)
        sources[module_name] = PluginInfo(module_name, None, None)
    for entry_point in entry_points(group=PLUGINS_GROUP):
        dist = entry_point.dist
        dist_name = dist.name if dist else None
        if not plugin_filter.allows(dist_name):
            continue
        name = f"{dist_name}:{entry_point.name}" if dist_name else entry_point.name
        version = dist.version if dist else None
        try:
            manager.register(entry_point.load(), name=name)
        except Exception as error:  # a broken plugin must only break itself
            info = PluginInfo(name, dist_name, version, f"{type(error).__name__}: {error}")
            logger.warning(
                "swift-gym plugin %s (%s) failed to load and is skipped: %s",
                name,
                entry_point.value,
                info.error,
            )
        else:
            info = PluginInfo(name, dist_name, version)
            sources[name] = info
        plugins.append(info)
    return LoadedPlugins(manager, plugins, sources)


def call_each_plugin(
    loaded: LoadedPlugins, hook: str, make_register: Callable[[PluginInfo], Callable[..., Any]]
) -> list[str]:
    """Call `hook` on each plugin with its own `register` callback, isolating failures.

    Returns what went wrong, one line per plugin whose hook raised (also logged).
    """
    problems = []
    for impl in getattr(loaded.manager.hook, hook).get_hookimpls():
        source = loaded.sources.get(impl.plugin_name, PluginInfo(impl.plugin_name, None, None))
        register = make_register(source)
        try:
            impl.function(*[register for _ in impl.argnames])
        except Exception as error:  # a broken plugin must only break itself
            problem = f"plugin {impl.plugin_name} failed in {hook}: {type(error).__name__}: {error}"
            logger.warning("swift-gym: %s", problem)
            problems.append(problem)
    return problems
