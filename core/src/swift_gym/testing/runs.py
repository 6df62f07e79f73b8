"""The runs the kit makes for one config, and the violations they find.

Per config: one recorded episode as given (when it has no seed), one per seed, the same
episodes again on fresh instances (determinism) and all of them interleaved on one loop
(isolation), every garbage reply on a fresh instance, and `close()` where it is easy to get
wrong. An env that offers tools also gets, each on a fresh instance right after reset, a call to
every tool with arguments drawn from its schema and each garbage call (`tools.samples`); such
calls are mixed into its episodes' replies too.
"Recorded" runs check every result; the comparison runs only keep transcripts, so a
broken rule is reported once.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import random
import sys
from collections.abc import Mapping
from typing import Any

from ..env import Env, Message
from ..steps import StepResult
from ..tools.samples import TRIES, call_message, garbage_calls, garbage_kind, random_arguments
from ..tools.toolset import ToolSet, offered_tools
from .blocking_calls import blocking_calls, declares_never_blocks
from .episodes import Episode, Recorder, close_env, env_samples, first_difference
from .options import CheckOptions
from .replies import GARBAGE_REPLIES, RepeatedReply, ReplyScript, Script
from .report import ConformanceReport, Violation

MAX_SHOWN_CALLS = 5
"""Distinct blocking calls a `never_blocks` violation names."""


def _global_rng_state() -> tuple[Any, ...]:
    """The global `random` state and, if numpy is imported, numpy's legacy global state."""
    states: list[Any] = [random.getstate()]
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        name, keys, *rest = numpy.random.get_state()
        states.append((name, keys.tobytes(), *rest))
    return tuple(states)


def _import_numpy_if_installed() -> None:
    """So an env that imports numpy lazily is caught touching its global RNG too."""
    if "numpy" not in sys.modules and importlib.util.find_spec("numpy") is not None:
        importlib.import_module("numpy")


class ConfigCheck:
    """All the runs for one config, recording violations into a shared report."""

    def __init__(
        self,
        env_class: type[Env],
        config: Mapping[str, Any],
        options: CheckOptions,
        report: ConformanceReport,
    ):
        if not isinstance(config, Mapping):
            raise TypeError(f"each config must be a dict (an env_config), not {config!r}")
        self.env_class = env_class
        self.config = dict(config)
        self.options = options
        self.report = report
        self.samples: list[Message] = []
        if self.config.get("seed") is not None:
            self.seeded = [self.config]
        else:
            self.seeded = [{**self.config, "seed": seed} for seed in options.seeds]

    def record(
        self,
        check: str,
        message: str,
        config: Mapping[str, Any],
        step: int | None = None,
        reply: str | None = None,
    ) -> None:
        if check not in self.options.skip:
            self.report.violations.append(Violation(check, message, dict(config), step, reply))

    def recorder(self, config: Mapping[str, Any]) -> Recorder:
        def record(check: str, message: str, step: int | None, reply: str | None) -> None:
            self.record(check, message, config, step, reply)

        return Recorder(record, self.options.block_budget)

    def build(self, config: Mapping[str, Any]) -> Env | None:
        try:
            return self.env_class(config)
        except Exception as error:  # the env's failure is what the kit reports
            self.record("construct", f"{type(error).__name__}: {error}", config)
            return None

    def episode(
        self,
        env: Env,
        config: Mapping[str, Any],
        key: str,
        recorded: bool,
        script: Script | None = None,
        failure_check: str | None = None,
    ) -> Episode:
        if script is None:
            script = ReplyScript(f"swift-gym-conformance/{config.get('seed')}/{key}", self.samples)
        recorder = self.recorder(config) if recorded else None
        return Episode(
            env,
            script,
            call_timeout=self.options.call_timeout,
            recorder=recorder,
            failure_check=failure_check,
        )

    async def play(self, config: Mapping[str, Any], key: str, recorded: bool) -> Episode | None:
        """One whole episode on a fresh instance; recorded runs also check the global RNG."""
        watch_rng = recorded and "global_rng" not in self.options.skip
        before = _global_rng_state() if watch_rng else None
        env = self.build(config) if recorded else _quiet_build(self.env_class, config)
        if env is None:
            return None
        episode = self.episode(env, config, key, recorded)
        await episode.start()
        while not episode.done:
            await episode.advance(self.options.max_steps)
        await episode.close(times=2 if recorded else 1)
        self._count(episode)
        if watch_rng and _global_rng_state() != before:
            self.record(
                "global_rng",
                "the episode changed the global random (or numpy) RNG state: give the env its "
                "own random.Random(seed) / numpy.random.default_rng(seed)",
                config,
            )
        return episode

    def _count(self, episode: Episode) -> None:
        self.report.episodes += 1
        self.report.steps += episode.steps

    async def run(self) -> None:
        _import_numpy_if_installed()
        probe = self.build(self.config)
        if probe is None:
            return
        self.samples = env_samples(probe, self.options.sample_replies)
        await close_env(probe, 1, lambda message: None)  # check_close reports close() failures
        self.samples += await self.tool_samples()
        if self.config.get("seed") is None:
            await self.play(self.config, "as-given", recorded=True)
        firsts = [await self.play(config, "0", recorded=True) for config in self.seeded]
        if "determinism" not in self.options.skip:
            await self.check_determinism(firsts)
        if "isolation" not in self.options.skip:
            await self.check_isolation(firsts)
        if "garbage" not in self.options.skip:
            await self.check_garbage()
        if "tool_calls" not in self.options.skip:
            await self.check_tool_calls()
        if "close" not in self.options.skip:
            await self.check_close()
        if "never_blocks" not in self.options.skip and declares_never_blocks(self.env_class):
            await self.check_never_blocks()

    async def check_never_blocks(self) -> None:
        """One more episode of the first seeded config, watched from building the env to
        closing it; the episodes before warmed up what is imported or cached late."""
        config = self.seeded[0]
        with blocking_calls() as seen:
            await self.play(config, "0", recorded=False)
        if seen:
            shown = ", ".join(dict.fromkeys(seen[:MAX_SHOWN_CALLS]))
            self.record(
                "never_blocks",
                f"the env declares never_blocks, but it made {len(seen)} blocking calls "
                f"({shown}): `swift-gym serve` plays it on its own event loop, where each one "
                "stalls every session. Await instead (asyncio.sleep, an async client, "
                "`await asyncio.to_thread(...)`), load files in __init__'s module, or drop "
                "the declaration",
                config,
            )

    async def check_determinism(self, firsts: list[Episode | None]) -> None:
        for config, first in zip(self.seeded, firsts, strict=True):
            again = await self.play(config, "0", recorded=False)
            if first is None or again is None:
                continue
            difference = first_difference(first.transcript, again.transcript)
            if difference is not None:
                self.record(
                    "determinism",
                    f"a fresh instance with the same seed and replies played differently: "
                    f"{difference}",
                    config,
                )

    async def check_isolation(self, firsts: list[Episode | None]) -> None:
        """Every seeded config, `copies` times, interleaved step by step on this loop."""
        runs: list[tuple[Mapping[str, Any], Episode, Episode]] = []
        for config, first in zip(self.seeded, firsts, strict=True):
            for _ in range(self.options.copies):
                env = _quiet_build(self.env_class, config)
                if first is not None and env is not None:
                    runs.append((config, first, self.episode(env, config, "0", recorded=False)))
        episodes = [episode for _, _, episode in runs]
        await asyncio.gather(*(episode.start() for episode in episodes))
        while live := [episode for episode in episodes if not episode.done]:
            await asyncio.gather(*(episode.advance(self.options.max_steps) for episode in live))
        for _, _, episode in runs:
            await episode.close()
            self._count(episode)
        for played, first, episode in runs:
            difference = first_difference(first.transcript, episode.transcript)
            if difference is not None:
                self.record(
                    "isolation",
                    f"{len(runs)} instances interleaved on one event loop played differently "
                    f"from one instance alone (shared state?): {difference}",
                    played,
                )

    async def check_garbage(self) -> None:
        """Each garbage reply, twice in a row, right after reset on a fresh instance."""
        config = self.seeded[0]
        for name, reply in GARBAGE_REPLIES.items():
            env = self.build(config)
            if env is None:
                return
            episode = self.episode(env, config, name, recorded=True, script=RepeatedReply(reply))
            await episode.start()
            for _ in range(2):
                if not episode.done:
                    await episode.advance(self.options.max_steps)
            await episode.close()
            self._count(episode)

    async def tool_samples(self) -> list[Message]:
        """Replies that call the tools a fresh instance offers (each tool twice, with arguments
        drawn from its schema, and each garbage call), mixed into the episodes' replies so that
        determinism and isolation cover tool steps too; none for a text env."""
        config = self.seeded[0]
        tools = await self._offered(config)
        if not tools:
            return []
        rng = random.Random(f"swift-gym-conformance/tool_samples/{config.get('seed')}")
        calls = []
        for name in tools.names:
            for _ in range(2):
                arguments = random_arguments(tools, name, rng)
                if arguments is not None:
                    calls.append(
                        call_message("call_0", name, json.dumps(arguments, ensure_ascii=False))
                    )
        calls += garbage_calls(tools).values()
        return [{"role": "assistant", "content": "", "tool_calls": [call]} for call in calls]

    async def check_tool_calls(self) -> None:
        """Each tool called with arguments drawn from its schema, then each garbage call, one
        call per fresh instance right after reset; a text env has nothing to call."""
        config = self.seeded[0]
        tools = await self._offered(config)
        if not tools:
            return
        rng = random.Random(f"swift-gym-conformance/tool_calls/{config.get('seed')}")
        for name in tools.names:
            arguments = random_arguments(tools, name, rng)
            if arguments is None:
                self.record(
                    "tool_calls",
                    f"no arguments drawn for tool {name!r} matched its parameters in {TRIES} "
                    "tries: can any value match them?",
                    config,
                )
                continue
            text = json.dumps(arguments, ensure_ascii=False)
            await self._call_once(
                config, f"valid_{name}", call_message("call_0", name, text), must_fail=False
            )
        for kind, call in garbage_calls(tools).items():
            await self._call_once(config, kind, call, must_fail=True)

    async def _offered(self, config: Mapping[str, Any]) -> ToolSet | None:
        """The valid tools a fresh instance offers after reset (a broken reset or invalid
        tools are reported by their own checks)."""
        env = _quiet_build(self.env_class, config)
        if env is None:
            return None
        episode = self.episode(env, config, "tools", recorded=False)
        await episode.start()
        try:
            return None if episode.done else offered_tools(env)
        except Exception:  # reported by the `tools` check
            return None
        finally:
            await episode.close()

    async def _call_once(
        self, config: Mapping[str, Any], kind: str, call: dict[str, Any], must_fail: bool
    ) -> None:
        env = self.build(config)
        if env is None:
            return
        reply = {"role": "assistant", "content": "", "tool_calls": [call]}
        script = RepeatedReply(reply)
        episode = self.episode(env, config, kind, True, script, failure_check="tool_calls")
        await episode.start()
        if not episode.done:
            await episode.advance(self.options.max_steps)
        await episode.close()
        self._count(episode)
        result = episode.last_result
        if not must_fail or not isinstance(result, StepResult):
            return  # a result that is no StepResult, or none at all, is reported as `step`
        answer = next((r for r in result.tool_results if r.tool_call_id == call["id"]), None)
        if answer is not None and not answer.is_error:
            function = call["function"]
            self.record(
                "tool_calls",
                f"a {garbage_kind(kind)} ({function['name']!r} with arguments "
                f"{function['arguments']!r}) got a result that is no error "
                f"({answer.content[:80]!r}): answer it with the error ToolResult that "
                "ToolSet.check(call) returns",
                config,
                1,
                kind,
            )

    async def check_close(self) -> None:
        """close() twice on an instance never reset, and on one left in mid-episode."""
        config = self.seeded[0]

        def record(message: str) -> None:
            self.record("close", message, config)

        env = self.build(config)
        if env is None:
            return
        for attempt in (1, 2):
            await close_env(env, attempt, lambda m: record(f"{m} (never reset)"))
        env = self.build(config)
        if env is None:
            return
        empty = RepeatedReply(GARBAGE_REPLIES["empty"])
        episode = self.episode(env, config, "close", recorded=False, script=empty)
        await episode.start()
        if not episode.done:
            await episode.advance(self.options.max_steps)
        for attempt in (1, 2):
            await close_env(env, attempt, lambda m: record(f"{m} (after an unfinished episode)"))


def _quiet_build(env_class: type[Env], config: Mapping[str, Any]) -> Env | None:
    """An instance for a comparison run; a failure was already reported by the recorded run."""
    try:
        return env_class(config)
    except Exception:  # reported once, by the recorded run of the same config
        return None
