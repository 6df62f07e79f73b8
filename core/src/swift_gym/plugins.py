"""Loads hook plugins into one pluggy manager, each in isolation.

`SWIFT_GYM_LOAD_PLUGINS` (unset: all; empty: none; "a,b": only those distributions) and
`SWIFT_GYM_DISABLE_PLUGINS` ("a,b": skip those) choose which installed distributions count, for
hook plugins and for the envs they register alike. A plugin that fails to import (whatever it
raises, `sys.exit()` included) is recorded with its distribution and the original error, and the
others load as usual. Each import is timed: one slower than `SWIFT_GYM_SLOW_PLUGIN_SECONDS`
(default 1) is named in a warning, since every command and every ms-swift process pays for it.
Each plugin's `swift_gym_*` attributes are checked against the hook specs, so a misspelt or
unmarked hook is reported instead of silently never called.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from importlib.metadata import entry_points
from typing import Any

import pluggy

from . import hookspecs
from .hookspecs import PROJECT_NAME

PLUGINS_GROUP = "swift_gym.plugins"
LOAD_VARIABLE = "SWIFT_GYM_LOAD_PLUGINS"
DISABLE_VARIABLE = "SWIFT_GYM_DISABLE_PLUGINS"
SLOW_VARIABLE = "SWIFT_GYM_SLOW_PLUGIN_SECONDS"
DEFAULT_SLOW_SECONDS = 1.0
BUILTIN_PLUGINS = ("swift_gym.entry_points",)
HOOK_PREFIX = "swift_gym_"

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


def describe_error(error: BaseException) -> str:
    """`Type: message` for a report, without an empty `: ` and saying what `sys.exit()` was."""
    if isinstance(error, SystemExit):
        return f"SystemExit: it called sys.exit({error.code!r})"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Terminated(SystemExit):
    """SIGTERM, turned into an exit so `finally` blocks run (the command's handler raises it).

    Raised wherever the program is when the signal arrives, so `contain` lets it through: a
    plugin's own `sys.exit()` is contained, a SIGTERM is not.
    """

    def __init__(self, signum: int = 15):
        super().__init__(128 + signum)


def terminate(signum: int, frame: Any) -> None:
    """A SIGTERM handler: raise `Terminated`."""
    raise Terminated(signum)


def contain(error: BaseException, doing: str) -> None:
    """Re-raise a KeyboardInterrupt or a `Terminated` (SIGTERM), saying what it interrupted; any
    other error is contained.

    Code a plugin runs may raise anything, SystemExit and GeneratorExit included, and a plugin
    must only break itself. KeyboardInterrupt is the exception: Python raises it wherever the
    program is when Ctrl-C arrives, so a real Ctrl-C during a slow plugin import looks exactly
    like a plugin raising it; the user asked to stop, so it stops the program.
    """
    if isinstance(error, (KeyboardInterrupt, Terminated)):
        logger.warning("swift-gym: interrupted while %s", doing)
        raise error


_warned_values: set[str] = set()


def slow_plugin_seconds(environ: Mapping[str, str] | None = None) -> float:
    """The import time above which a plugin is named in a warning (`inf` turns it off)."""
    environ = os.environ if environ is None else environ
    value = environ.get(SLOW_VARIABLE, "").strip()
    if not value:
        return DEFAULT_SLOW_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:  # also NaN
        if value in _warned_values:
            return DEFAULT_SLOW_SECONDS
        _warned_values.add(value)
        logger.warning(
            "swift-gym: %s=%r is not a number of seconds; using %g",
            SLOW_VARIABLE,
            value,
            DEFAULT_SLOW_SECONDS,
        )
        return DEFAULT_SLOW_SECONDS
    return seconds


@dataclass(frozen=True)
class PluginInfo:
    """A hook plugin: where it comes from, how long it took to import, and what is wrong."""

    name: str
    distribution: str | None
    version: str | None
    error: str | None = None
    """Why it failed to load (then it is not registered)."""
    load_seconds: float | None = None
    problems: tuple[str, ...] = field(default=())
    """What is wrong with a plugin that loaded: a misspelt or unmarked hook, say."""

    @property
    def ok(self) -> bool:
        return self.error is None and not self.problems


@dataclass
class LoadedPlugins:
    """A plugin manager with every allowed plugin registered, and the record of each."""

    manager: pluggy.PluginManager
    plugins: list[PluginInfo]
    sources: dict[str, PluginInfo]
    """Plugin name -> info for the plugins that loaded: which distribution registered what."""


HOOKS = tuple(name for name in vars(hookspecs) if name.startswith(HOOK_PREFIX))


def hook_problems(manager: pluggy.PluginManager, plugin: object) -> tuple[str, ...]:
    """What in a registered plugin swift-gym would silently never call.

    pluggy calls only functions marked `@swift_gym.hookimpl` and named exactly like a spec; a
    `swift_gym_*` attribute that is misspelt, or not marked, is a hook its author meant to give.
    """
    implemented = {caller.name for caller in manager.get_hookcallers(plugin) or ()}
    problems = []
    try:
        attributes = sorted(dir(plugin))
    except Exception:  # an object whose __dir__ raises: pluggy registered what it could see
        attributes = []
    for attribute in attributes:
        if not attribute.startswith(HOOK_PREFIX):
            continue
        try:
            value = getattr(plugin, attribute, None)
        except Exception:  # a property of a plugin object that raises: not a hook
            continue
        if not callable(value):
            continue
        if attribute not in HOOKS:
            close = difflib.get_close_matches(attribute, HOOKS, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]}?" if close else f"; the hooks are {', '.join(HOOKS)}"
            problems.append(f"{attribute} is not a swift-gym hook, so it is never called{hint}")
        elif attribute not in implemented:
            problems.append(f"{attribute} is not marked @swift_gym.hookimpl, so it is never called")
    if not implemented and not problems:
        problems.append(f"it implements no swift-gym hook (the hooks are {', '.join(HOOKS)})")
    return tuple(problems)


def _register(
    manager: pluggy.PluginManager, load: Callable[[], object], name: str
) -> tuple[object, float]:
    """Import a plugin and register it, timed."""
    start = time.perf_counter()
    plugin = load()
    manager.register(plugin, name=name)
    return plugin, time.perf_counter() - start


def load_plugins(plugin_filter: PluginFilter | None = None) -> LoadedPlugins:
    """A fresh plugin manager: the built-in plugins, then each allowed `swift_gym.plugins` entry."""
    import importlib

    plugin_filter = plugin_filter or PluginFilter.from_environ()
    slow = slow_plugin_seconds()
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    plugins: list[PluginInfo] = []
    sources: dict[str, PluginInfo] = {}
    for module_name in BUILTIN_PLUGINS:
        _, seconds = _register(manager, partial(importlib.import_module, module_name), module_name)
        sources[module_name] = PluginInfo(module_name, None, None, load_seconds=seconds)
    for entry_point in entry_points(group=PLUGINS_GROUP):
        dist = entry_point.dist
        dist_name = dist.name if dist else None
        if not plugin_filter.allows(dist_name):
            continue
        name = f"{dist_name}:{entry_point.name}" if dist_name else entry_point.name
        version = dist.version if dist else None
        start = time.perf_counter()
        try:
            plugin, seconds = _register(manager, entry_point.load, name)
        except BaseException as error:  # a broken plugin must only break itself
            contain(error, f"loading swift-gym plugin {name} ({entry_point.value})")
            info = PluginInfo(
                name,
                dist_name,
                version,
                describe_error(error),
                load_seconds=time.perf_counter() - start,
            )
            logger.warning(
                "swift-gym plugin %s (%s) failed to load and is skipped: %s",
                name,
                entry_point.value,
                info.error,
            )
        else:
            problems = hook_problems(manager, plugin)
            info = PluginInfo(name, dist_name, version, load_seconds=seconds, problems=problems)
            sources[name] = info
            for problem in info.problems:
                logger.warning("swift-gym plugin %s (%s): %s", name, entry_point.value, problem)
        if info.load_seconds is not None and info.load_seconds > slow:
            _warn_slow(
                f"swift-gym plugin {name} took {info.load_seconds:.1f} s to import", info, slow
            )
        plugins.append(info)
    return LoadedPlugins(manager, plugins, sources)


def call_each_plugin(
    loaded: LoadedPlugins, hook: str, make_register: Callable[[PluginInfo], Callable[..., Any]]
) -> list[str]:
    """Call `hook` on each plugin with its own `register` callback, isolating failures.

    Returns what went wrong, one line per plugin whose hook raised (also logged). A third-party
    hook slower than the slow-plugin threshold is named in a warning, as a slow import is.
    """
    problems = []
    slow = slow_plugin_seconds()
    for impl in getattr(loaded.manager.hook, hook).get_hookimpls():
        source = loaded.sources.get(impl.plugin_name, PluginInfo(impl.plugin_name, None, None))
        register = make_register(source)
        start = time.perf_counter()
        try:
            impl.function(*[register for _ in impl.argnames])
        except BaseException as error:  # a broken plugin must only break itself
            contain(error, f"running {hook} of swift-gym plugin {impl.plugin_name}")
            problem = f"plugin {impl.plugin_name} failed in {hook}: {describe_error(error)}"
            logger.warning("swift-gym: %s", problem)
            problems.append(problem)
        seconds = time.perf_counter() - start
        if seconds > slow and impl.plugin_name not in BUILTIN_PLUGINS:
            _warn_slow(
                f"swift-gym plugin {impl.plugin_name} took {seconds:.1f} s in {hook}", source, slow
            )
    return problems


def _warn_slow(what: str, source: PluginInfo, threshold: float) -> None:
    skip = (
        f"SWIFT_GYM_DISABLE_PLUGINS={source.distribution}" if source.distribution else "removing it"
    )
    logger.warning(
        "%s, which every swift-gym command and ms-swift process waits for; make it lighter, or "
        "skip it with %s (this warning: %s=%g)",
        what,
        skip,
        SLOW_VARIABLE,
        threshold,
    )
