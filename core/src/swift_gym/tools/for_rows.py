"""The `tools` column of dataset rows whose env offers tools.

The `swift_gym` scheduler sets each request's `tools` from the env, but ms-swift encodes the
prompt it trains on (and, in colocate mode, the first turn's prompt) from the row's own `tools`:
a row without them trains on a prompt without the tools block the episode was played with. So
`swift-gym dataset` gives each row of a tool env its env's tools, as the JSON string an ms-swift
agent row holds (as `swift-gym export` writes them). Tools are valid after `reset`, and an env
may offer different tools for different configs or seeds, so each row's env is made and reset
once; text envs (whose class keeps `Env.tools`) are never built for this.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..env import Env
from .toolset import offered_tools

if TYPE_CHECKING:
    from ..registry import Registry


class RowTools:
    """`tools_text(env_config)`: the JSON text of the tools an env_config's env offers after its
    reset, or None for an env that offers none. Use as a context manager (one event loop)."""

    def __init__(self, registry: Registry):
        self.registry = registry
        self._offers: dict[str, bool] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def __enter__(self) -> RowTools:
        self._loop = asyncio.new_event_loop()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None:
            self._loop.close()
            self._loop = None

    def may_offer(self, name: str) -> bool:
        """Whether env `name`'s class overrides `Env.tools` (a text env never offers tools)."""
        found = self._offers.get(name)
        if found is None:
            env_class = self.registry.get_env_class(name)
            found = self._offers[name] = getattr(env_class, "tools", Env.tools) is not Env.tools
        return found

    def tools_text(self, env_config: Mapping[str, Any]) -> str | None:
        """Make and reset the env, read its checked tools, close it. Raises what the env
        raises (the caller reports it as a bad row)."""
        name = str(env_config["name"])
        if not self.may_offer(name):
            return None
        assert self._loop is not None, "use RowTools as a context manager"
        env = self.registry.make(dict(env_config))
        try:
            self._run(env.reset())
            tools = list(offered_tools(env))
        finally:
            self._run(env.close())
        return json.dumps(tools, ensure_ascii=False) if tools else None

    def _run(self, coroutine: Any) -> Any:
        """Run `coroutine` on the loop. A signal (Ctrl-C, SIGTERM: the command's handlers raise)
        can land before it starts: its task is then cancelled and run to its end (or the
        coroutine closed, if no task was made yet), so neither "coroutine ... was never awaited"
        nor "Task was destroyed but it is pending" follows the command's one line about the
        interruption."""
        loop = self._loop
        assert loop is not None
        task = None
        try:
            task = loop.create_task(coroutine)
            return loop.run_until_complete(task)
        except BaseException:
            if task is None:
                coroutine.close()
            elif not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):  # a second signal: the first is raised
                    loop.run_until_complete(task)
            raise
