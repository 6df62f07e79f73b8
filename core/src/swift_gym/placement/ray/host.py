"""The Ray actor that plays one env's episodes on a cluster node: `EnvHost`.

It is given the env's name, never the env: each episode's env is built here, from the name resolved
in this node's own registry and the config validated here (as `make` does), so no env object crosses
the wire. One host plays many episodes over its life, up to its shape's `episodes` at once. Each
episode's calls go through a `Runner` (`placement.runners`, as in `swift-gym serve`): an env that
declares `never_blocks` is played on the actor's own loop (`InlineRunner`); any other gets a thread
and loop of its own per episode (`EnvWorker`), so one that blocks holds only its own episode. Each
answer says which node and process played it (`where`), and what the caller's stand-in needs to look
like the env (`View`: its tools, a replaced chat).

This module imports no Ray at import time: the caller turns the class into an actor
(`ray.remote(EnvHost)`) only once the operator's setting is on.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from typing import Any

from ...deployment import deployment_of
from ...registry import default_registry
from ..runners import InlineRunner, Runner
from ..worker import EnvWorker

CALL_TIMEOUT = 7 * 24 * 3600.0
"""No limit of the host's own: a step's timeout is the caller's (it stops waiting)."""
QUERIES = ("oracle_reply", "sample_replies")
"""The env's synchronous methods the caller may ask for by name; nothing else."""
ABANDONED_KEPT = 10_000
"""Tokens of abandoned opens kept until their open arrives. One whose open never comes (it
failed before it reached this actor) would stay forever: the oldest are forgotten past this."""


class _Episode:
    """One episode's env and where its calls run (inline, or its own thread)."""

    def __init__(self, env: Any, runner: Runner, token: str | None = None):
        self.env = env
        self.runner = runner
        self.token = token

    async def call(self, function: Callable[[], Any]) -> Any:
        return await self.runner.call(function, CALL_TIMEOUT)

    def stop(self) -> None:
        self.runner.stop()


def _build(env_class: type, env_name: str, env_config: dict[str, Any]) -> Any:
    """The env, its config validated here (a row without `name` plays this host's env)."""
    from ...errors import InvalidConfigError

    try:
        return env_class(env_config)
    except InvalidConfigError as error:
        error.env_name = env_name
        raise


class EnvHost:
    """Plays episodes of the env registered as `env_name` (see the module docstring)."""

    def __init__(self, env_name: str):
        self.env_name = env_name
        self._episodes: dict[int, _Episode] = {}
        self._ids = itertools.count()
        self._where: dict[str, Any] | None = None
        self._abandoned: dict[str, None] = {}  # in the order they came: the oldest go first
        self.played = 0

    def where(self) -> dict[str, Any]:
        """The node and process this actor runs in."""
        if self._where is None:
            import ray

            self._where = {"node_id": ray.get_runtime_context().get_node_id(), "pid": os.getpid()}
        return self._where

    async def open(
        self, env_config: dict[str, Any], token: str | None = None
    ) -> tuple[int, int | None, dict[str, Any]]:
        """Build an env for a new episode: (its id here, its `max_turns_hint()`, where).
        `token` names the request, for `abandon`: a caller that stopped waiting (cancelled)
        never learns the id, so it cannot close the episode itself."""
        env_class = default_registry().get_env_class(self.env_name)
        runner: Runner = (
            InlineRunner()
            if deployment_of(env_class).never_blocks
            else EnvWorker(f"swift-gym-ray-{self.env_name}")
        )
        episode = _Episode(None, runner, token)
        try:
            episode.env = await episode.call(lambda: _build(env_class, self.env_name, env_config))
            hint = await episode.call(episode.env.max_turns_hint)
        except BaseException:
            episode.stop()
            if token is not None:
                self._abandoned.pop(token, None)
            raise
        key = next(self._ids)
        self._episodes[key] = episode
        self.played += 1
        if token is not None and token in self._abandoned:  # given up while it was built
            del self._abandoned[token]
            await self.close(key)
        return key, hint, self.where()

    async def abandon(self, token: str) -> None:
        """The caller stopped waiting for `open(..., token)`: close that episode, now if it is
        open, else as soon as it is."""
        for key, episode in list(self._episodes.items()):
            if episode.token == token:
                await self.close(key)
                return
        self._abandoned[token] = None
        if len(self._abandoned) > ABANDONED_KEPT:
            del self._abandoned[next(iter(self._abandoned))]

    async def reset(self, key: int, request: Any = None) -> tuple[Any, dict[str, Any]]:
        """The env's `reset()` answer, and its view."""
        episode = self._episode(key)
        answer = await episode.call(lambda: episode.env.reset(request))
        return answer, self._view(episode)

    async def step(self, key: int, messages: list[dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
        """The env's `step()` answer, and its view."""
        episode = self._episode(key)
        answer = await episode.call(lambda: episode.env.step(messages))
        return answer, self._view(episode)

    async def query(self, key: int, method: str) -> Any:
        """One of the env's synchronous methods in `QUERIES` (for a policy)."""
        if method not in QUERIES:
            raise ValueError(f"{method!r} is not one of {QUERIES}")
        episode = self._episode(key)
        return await episode.call(getattr(episode.env, method))

    async def close(self, key: int) -> None:
        """Close the episode's env and forget it; closing one already gone does nothing."""
        episode = self._episodes.pop(key, None)
        if episode is None:
            return
        try:
            await episode.call(episode.env.close)
        finally:
            episode.stop()

    def stats(self) -> dict[str, Any]:
        """What this actor holds now and has played (for tests and diagnostics)."""
        return {**self.where(), "open": len(self._episodes), "played": self.played}

    def _episode(self, key: int) -> _Episode:
        episode = self._episodes.get(key)
        if episode is None:
            raise LookupError(f"no episode {key} on this actor: it was closed")
        return episode

    def _view(self, episode: _Episode) -> dict[str, Any]:
        env = episode.env
        tools = env.tools()
        context = env.rewritten_context()
        return {
            "tools": tools if tools else None,
            "context": context,
            "where": self.where(),
        }
