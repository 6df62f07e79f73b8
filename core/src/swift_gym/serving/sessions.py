"""Sessions: one client connection, one env at a time, episodes one after another.

A session never resets on its own: a step before the first reset, or after the episode ended
(done) or broke (the env raised or hung), is answered with an error frame that says to reset.
Each reset builds a fresh env from the reset's env_config, where the server's isolation puts
it (`placement`: the session's own thread by default), and plays it as an `episode.Episode`:
the chat `Env.step` receives, the checks of what the env returned (a broken rule is the env's
EXECUTION_ERROR, with the check's own text) and the layout of tool turns are the same as in
training and `swift-gym eval`. An env that replaces the chat (`Env.rewritten_context`: an agent
program that summarised its history or changed its tools) has it replaced here too, and the
answer carries the whole chat (`messages`) and the tools offered now, for the client to show.

An oracle frame asks for the reply of the env's own reference policy in the episode being
played (`Env.oracle_reply`, run on the env's worker like a step): served only where the env
defines one and the operator did not turn oracles off (`oracle_served`), which the reset's
metadata says (`oracle`), so a client can never make the server run what it does not serve.
The reply goes back as text or as a checked assistant message with its tool calls.

`SessionTable` bounds how many sessions run at once. A runner whose env hung past the step
timeout still holds its slot until the call really returns, and a session whose runner is stuck
gets a new one only while the sessions and the stuck runners stay within the capacity (its reset
is refused CAPACITY_REACHED otherwise), so hung envs cannot make the server start threads
without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
import uuid
from typing import TYPE_CHECKING, Any

from ..episode import Episode, Reply, ReplyShapeError, replaces_chat, rewritten_context, tools_of
from ..errors import InvalidConfigError, InvalidStepError, short_repr
from ..placement.runners import Isolation
from ..placement.worker import CallTimeout
from ..plugins import describe_error
from .protocol import (
    CAPACITY_REACHED,
    EXECUTION_ERROR,
    SESSION_ERROR,
    VALIDATION_ERROR,
    ProtocolError,
    observation_frame,
    oracle_frame,
    read_action,
    result_fields,
    state_frame,
)

if TYPE_CHECKING:
    from ..env import Env, Message
    from ..placement.runners import Runner
    from ..tools.toolset import ToolSet
    from .catalogue import EnvCatalogue

NEW, PLAYING, OVER, BROKEN = "new", "playing", "over", "broken"


def env_error(name: str | None, error: InvalidStepError) -> ProtocolError:
    """What the env returned broke a rule (`episode.checks`): an EXECUTION_ERROR naming the
    env, with the check's own text, never a frame a client cannot read."""
    return ProtocolError(
        EXECUTION_ERROR, f"env {short_repr(name or '?')}: {error}; send a reset to start again"
    )


CLOSE_TIMEOUT = 5.0
"""Seconds an env's close() gets before its worker is left to end on its own."""


class Session:
    """One client's env and episode. Frames are handled one at a time (`handle`)."""

    def __init__(
        self,
        catalogue: EnvCatalogue,
        table: SessionTable,
        step_timeout: float,
        placement: Isolation | None = None,
        oracle: bool = True,
    ):
        self.id = uuid.uuid4().hex
        self.oracle = oracle
        """Whether the operator serves oracle replies at all (`swift-gym serve --no-oracle`)."""
        self.placement = placement or Isolation()
        self.catalogue = catalogue
        self.table = table
        self.step_timeout = step_timeout
        self.phase = NEW
        self.env: Env | None = None
        self.env_name: str | None = None
        self.env_config: dict[str, Any] | None = None
        self.episode_id: str | None = None
        self.steps = 0
        self.episodes = 0
        """Resets that started an episode, for the log."""
        self.total_steps = 0
        self.episode = Episode(records=False)
        """The episode being played: its chat (what `Env.step` receives), tools and turns."""
        self.handling = False
        """A frame is being handled: the session is not idle, whatever the clock says."""
        self.last_active = time.monotonic()
        self._worker: Runner | None = None
        self._to_close: Env | None = None
        """The env of an episode that just ended, closed once its last step is answered."""
        self._closing: asyncio.Future[None] | None = None
        self._broken = ""
        """Why the session is BROKEN, for the step that follows."""

    async def handle(self, kind: str, data: dict[str, Any]) -> str:
        """The answer to one frame (`close` is the caller's); raises `ProtocolError`."""
        self.handling = True
        try:
            await self._closed()
            if kind == "reset":
                return await self.reset(data)
            if kind == "step":
                return await self.step(data)
            if kind == "oracle":
                return await self.oracle_reply()
            return state_frame(self.state())
        finally:
            self.handling = False
            self.last_active = time.monotonic()

    def state(self) -> dict[str, Any]:
        """OpenEnv's state (`episode_id`, `step_count`), plus which env, its config and phase."""
        return {
            "episode_id": self.episode_id,
            "step_count": self.steps,
            "env": self.env_name,
            "env_config": self.env_config,
            "phase": self.phase,
            "done": self.phase in (OVER, BROKEN),
        }

    def _metadata(self) -> dict[str, Any]:
        return {"env": self.env_name, "episode_id": self.episode_id, "step_count": self.steps}

    def _playing_env(self) -> Env:
        """The env of the episode being played; raises `ProtocolError` when there is none to
        step or ask for an oracle reply (before the first reset, after done, or broken)."""
        if self.phase == NEW:
            raise ProtocolError(SESSION_ERROR, "no episode yet: send a reset first")
        if self.phase == OVER:
            raise ProtocolError(
                SESSION_ERROR, "the episode is over (done): send a reset to start the next one"
            )
        if self.phase == BROKEN or self.env is None:
            raise ProtocolError(SESSION_ERROR, f"{self._broken}: send a reset")
        return self.env

    def oracle_served(self) -> bool:
        """Whether an oracle frame is answered in this episode: the operator serves oracles
        and the episode's env defines `oracle_reply` (the `Env` default only raises)."""
        return self.oracle and self.env is not None and defines_oracle(type(self.env))

    async def oracle_reply(self) -> str:
        """The episode's env's `oracle_reply()`, as an oracle frame; raises `ProtocolError`
        (not now, none served here, or the env's own failure, which breaks the episode as a
        step's would: its state is unknown)."""
        env = self._playing_env()
        name = self.env_name or "?"
        if not self.oracle_served():
            why = (
                "this server serves no oracle replies (swift-gym serve --no-oracle)"
                if not self.oracle
                else f"{type(env).__name__} does not define oracle_reply()"
            )
            raise ProtocolError(VALIDATION_ERROR, f"env {short_repr(name)} has no oracle: {why}")
        self.phase, self._broken = BROKEN, "the episode ended with an env error (answered before)"
        value = await self._call(self._worker_for_call(), env.oracle_reply, "oracle_reply()")
        reply = oracle_answer(value, name)
        self.phase = PLAYING
        return oracle_frame(reply)

    async def reset(self, data: dict[str, Any]) -> str:
        await self._drop_env()
        self.phase, self._broken = BROKEN, "the last reset failed (answered before)"
        self.steps = 0
        self.episode = Episode(records=False)
        # Checking the reset, building the env, its reset() and its tools() are one call on the
        # worker: each call is a round trip between threads, the dearest part of a short reset.
        opened: dict[str, Any] = {"doing": "checking the reset"}
        registry = self.catalogue.registry

        async def open_episode() -> Any:
            name, env_config, episode_id = self.catalogue.env_config(data)
            opened.update(name=name, env_config=env_config, episode_id=episode_id)
            opened["doing"] = "building the env"
            env = opened["env"] = registry.get_env_class(name)(env_config)
            opened["doing"] = "reset()"
            called: Any = env.reset()
            result = (await called) if inspect.isawaitable(called) else called
            opened["doing"] = "tools()"
            tools = tools_of(env)
            opened["doing"] = "rewritten_context()"
            return result, tools, rewritten_context(env)

        kind = self.placement.kind(self.catalogue.requested_env(data))
        try:
            result, tools, context = await self._call(
                self._worker_for_call(kind), open_episode, opened
            )
        finally:  # what the worker got to, read here (a call that timed out goes on there)
            got = dict(opened)
            if "name" in got:
                self.env_name, self.env_config = got["name"], got["env_config"]
                self.episode_id = got["episode_id"] or uuid.uuid4().hex
            self.env = got.get("env")
        episode = self.episode
        try:
            episode.open(result, tools, context)
        except InvalidStepError as error:
            raise env_error(self.env_name, error) from None
        context = episode.messages if context is not None else None
        self.phase = PLAYING
        self.episodes += 1
        return observation_frame(
            episode.observation,
            None,
            False,
            episode.reset_info,
            {**self._metadata(), "oracle": self.oracle_served()},
            system_prompt=episode.system_prompt or "",
            tools=tools.copy() if tools else None,
            messages=context,
        )

    async def step(self, data: dict[str, Any]) -> str:
        env = self._playing_env()
        text, calls = read_action(data)  # a bad action is refused; the episode goes on
        history = self.episode.send(Reply(text, tuple(calls)))
        # until the step has returned something sound
        self.phase, self._broken = BROKEN, "the episode ended with an env error (answered before)"
        worker = self._worker_for_call()
        context: list[Message] | None = None
        tools: ToolSet | None = None
        if replaces_chat(env):  # step, then read the chat it may have replaced: one call

            async def play() -> tuple[Any, list[Message] | None, ToolSet | None]:
                called: Any = env.step(history)
                value = (await called) if inspect.isawaitable(called) else called
                context = rewritten_context(env)
                return value, context, None if context is None else tools_of(env)

            value, context, tools = await self._call(worker, play, "step()")
        else:  # the usual case, with no coroutine around the step's
            value = await self._call(worker, lambda: env.step(history), "step()")
        try:
            turn = self.episode.take(value, context, tools)
        except InvalidStepError as error:
            raise env_error(self.env_name, error) from None
        step = turn.step
        tool_results = None
        if turn.tool_turn:
            tool_results = [result_fields(result) for result in turn.results]
        self.steps += 1
        self.total_steps += 1
        self.phase = OVER if step.done else PLAYING
        if step.done:  # closed once the answer is out (`answered`), with its own CLOSE_TIMEOUT
            self.env, self._to_close = None, env
        tools = self.episode.tools
        return observation_frame(
            step.observation,
            step.reward,
            step.done,
            step.info,
            self._metadata(),
            tool_results=tool_results,
            messages=None if turn.context is None else self.episode.messages,
            tools=None if turn.context is None else (tools.copy() if tools else []),
        )

    def answered(self) -> None:
        """The answer to the last frame was sent: close the env of an episode that ended, in
        the background (the next frame waits for it), so a slow close() fails no step."""
        env, self._to_close = self._to_close, None
        if env is not None and self._worker is not None:
            self._closing = asyncio.ensure_future(self._close_env(self._worker, env))

    async def _closed(self) -> None:
        """Wait for the env being closed in the background, if any (CLOSE_TIMEOUT at most)."""
        self.answered()
        closing, self._closing = self._closing, None
        if closing is not None:
            await closing

    @staticmethod
    async def _close_env(worker: Runner, env: Env) -> None:
        """`env.close()` on its worker, CLOSE_TIMEOUT at most; its failing is no client's
        problem (a close still running leaves the worker busy: it is orphaned on next use)."""
        with contextlib.suppress(Exception):
            await worker.call(env.close, CLOSE_TIMEOUT)

    def _worker_for_call(self, kind: str | None = None) -> Runner:
        """The session's runner (of `kind`, if given: a reset into an env that runs elsewhere);
        a new one if the old is still stuck in a timed-out call, when the table has room for it
        (raises `ProtocolError` CAPACITY_REACHED otherwise)."""
        if self._worker is not None and self._worker.busy:
            self.table.orphan(self._worker)
            self._worker = None
        elif self._worker is not None and kind is not None and self._worker.kind != kind:
            self._worker.stop()  # idle (its env was closed before this reset)
            self._worker = None
        if self._worker is None:
            if not self.table.has_room_for_worker():
                table = self.table
                raise ProtocolError(
                    CAPACITY_REACHED,
                    f"the server has no worker to spare: {len(table.sessions)} sessions open and "
                    f"{table.stuck()} envs stuck in calls that timed out, of {table.capacity} "
                    "(swift-gym serve --max-sessions): try again later",
                    active_sessions=table.in_use,
                    max_sessions=table.capacity,
                )
            self._worker = self.placement.runner(f"swift-gym-session-{self.id[:8]}", kind)
        return self._worker

    async def _call(self, worker: Runner, function: Any, doing: str | dict[str, Any]) -> Any:
        """`function()` on the worker. `doing` says what for in errors; a dict's "doing" and
        "name" are read when the error happens (a call that does several things updates them)."""
        try:
            return await worker.call(function, self.step_timeout)
        except ProtocolError:
            raise
        except InvalidConfigError as error:  # a constructor's own check (no map for this seed)
            raise ProtocolError(VALIDATION_ERROR, str(error)) from None
        except CallTimeout as error:
            doing, name = self._doing(doing)
            raise ProtocolError(
                EXECUTION_ERROR,
                f"env {short_repr(name)}: {doing} {error} (swift-gym serve "
                "--step-timeout); send a reset to start again",
            ) from None
        except Exception as error:  # the env's own failure: the session reports it, goes on
            doing, name = self._doing(doing)
            raise ProtocolError(
                EXECUTION_ERROR,
                f"env {short_repr(name)}: {doing} raised {short_repr(describe_error(error), 500)}",
            ) from None

    def _doing(self, doing: str | dict[str, Any]) -> tuple[str, str | None]:
        if isinstance(doing, dict):
            return str(doing["doing"]), doing.get("name", self.env_name)
        return doing, self.env_name

    async def _drop_env(self) -> None:
        """Close the current env, if any (its close() failing is no client's problem)."""
        env, self.env = self.env, None
        if env is None or self._worker is None:
            return
        if self._worker.busy:  # still stuck in a call: leave it, with its worker
            self.table.orphan(self._worker)
            self._worker = None
            return
        with contextlib.suppress(Exception):
            await self._worker.call(env.close, CLOSE_TIMEOUT)

    async def close(self) -> None:
        """End the session: close the env and stop its worker (or leave a stuck one orphaned)."""
        await self._closed()
        await self._drop_env()
        if self._worker is not None:
            if self._worker.busy:
                self.table.orphan(self._worker)
            else:
                self._worker.stop()
            self._worker = None
        self.table.remove(self)


class SessionTable:
    """The sessions of one server, bounded by `capacity` (stuck workers included)."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.sessions: dict[str, Session] = {}
        self._orphans: list[Runner] = []

    def _prune(self) -> None:
        for worker in [w for w in self._orphans if not w.busy]:
            worker.stop()
            self._orphans.remove(worker)

    @property
    def in_use(self) -> int:
        """Sessions open, plus workers still stuck in a call of an env that timed out."""
        self._prune()
        return len(self.sessions) + len(self._orphans)

    def add(self, session: Session) -> bool:
        """Count `session` in, unless the table is full."""
        if self.in_use >= self.capacity:
            return False
        self.sessions[session.id] = session
        return True

    def has_room_for_worker(self) -> bool:
        """Whether a session (counted in already) may start a worker: the sessions and the
        stuck workers stay within `capacity`, so hung envs cannot add threads without bound."""
        return self.in_use <= self.capacity

    def remove(self, session: Session) -> None:
        self.sessions.pop(session.id, None)

    def orphan(self, worker: Runner) -> None:
        """Keep a stuck worker counted until its call returns; then it is stopped."""
        self._orphans.append(worker)

    def idle(self, idle_timeout: float) -> list[Session]:
        """Sessions with no frame for `idle_timeout` seconds and none being handled."""
        now = time.monotonic()
        return [
            session
            for session in self.sessions.values()
            if not session.handling and now - session.last_active > idle_timeout
        ]

    def stuck(self) -> int:
        self._prune()
        return len(self._orphans)


def defines_oracle(env_class: type) -> bool:
    """Whether `env_class` has an `oracle_reply` of its own (not `Env`'s, which only raises)."""
    from ..env import Env

    method = getattr(env_class, "oracle_reply", None)
    return callable(method) and method is not Env.oracle_reply


def oracle_answer(value: Any, name: str) -> str | dict[str, Any]:
    """What `oracle_reply()` returned, as the oracle frame carries it: its text, or an
    assistant message rebuilt from its text and tool calls (nothing else of the env's dict
    travels); raises `ProtocolError` for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        try:
            return Reply.of(value).message()
        except ReplyShapeError:
            pass
    raise ProtocolError(
        EXECUTION_ERROR,
        f"env {short_repr(name)}: oracle_reply() returned {short_repr(value, 80)}, not text or "
        "an assistant message",
    )
