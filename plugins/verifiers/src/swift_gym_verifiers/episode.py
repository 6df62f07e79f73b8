"""One verifiers episode, driven with an `AgentEnv`'s client and scored by its own rubric.

The environment runs as verifiers runs it (`load_environment`, `serving`, `run_episode`):
its `Env.run` (the single-agent default, or the taskset's own multi-turn or multi-agent env),
its interception server on 127.0.0.1, its task's tool servers, its `@reward`/`@metric`
scoring and judges. Three things are swift-gym's: every seat is played by the in-process
`SwiftGymHarness` in the `subprocess` runtime (verifiers' defaults are a remote Prime sandbox
and the `bash` harness, which runs the model's commands); the interception answers each model
call through the episode's client (`bridge.EpisodeClient`), so each call is one turn of the
trainer's policy; and the task is the one at the row's `index`.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import math
import uuid
from typing import Any

from swift_gym import AgentResult, SwiftGymError, printable

from .config import MAX_INDEX
from .harness import HARNESS_ID
from .settings import config_error, taskset_overrides

MAX_ERRORS_SHOWN = 3


class VerifiersEpisodeError(SwiftGymError, RuntimeError):
    """A verifiers episode failed (its env, harness or scoring raised): an error episode."""


async def play(
    taskset_id: str, index: int | None, seed: int | None, openai_client: Any
) -> AgentResult:
    """Play the task at `index` of `taskset_id` (else the one `seed` picks, see
    `VerifiersConfig`) with `openai_client` as the model."""
    from verifiers.v1 import ModelContext
    from verifiers.v1.configs.client import EvalClientConfig

    from .bridge import EpisodeClient

    overrides = json.dumps(taskset_overrides(taskset_id), sort_keys=True)
    env, task, index = await asyncio.to_thread(_prepare, taskset_id, overrides, index, seed)
    # Never contacted: the interception's client for this config is the episode's own.
    client_config = EvalClientConfig(
        base_url=f"http://swift-gym.invalid/episode/{uuid.uuid4().hex}",
        api_key_var="SWIFT_GYM_VERIFIERS_NO_KEY",
    )
    bridge = EpisodeClient(openai_client)
    async with env.serving():
        clients = env._interception.clients  # verifiers 0.4.0's InterceptionServer
        clients[client_config.model_dump_json()] = bridge
        episode = await env.run_episode(task, ModelContext(model="policy", client=client_config))
    return result_of(taskset_id, index, episode)


def result_of(taskset_id: str, index: int, episode: Any) -> AgentResult:
    """The episode's reward (its trainable traces' mean), metrics and info; an error episode
    raises `VerifiersEpisodeError`."""
    errors = [*episode.errors, *(e for trace in episode.traces for e in trace.errors)]
    if errors or not episode.ok:
        shown = "; ".join(
            printable(f"{e.type}: {e.message}", 300) for e in errors[:MAX_ERRORS_SHOWN]
        )
        raise VerifiersEpisodeError(
            f"verifiers episode of {taskset_id!r} task {index} failed: {shown or 'not ok'}"
        )
    traces = [t for t in episode.traces if t.agent.trainable] or list(episode.traces)
    reward = sum(trace.reward for trace in traces) / len(traces)
    metrics: dict[str, float] = {}
    for trace in traces:
        for name, value in trace.metrics.items():
            if isinstance(value, (int, float)) and math.isfinite(value):
                metrics[name] = float(value)
        for name, item in trace.rewards.items():
            if item is not None and math.isfinite(item.score):
                metrics[f"reward.{name}"] = float(item.score)
    last = traces[-1]
    info = {
        "verifiers": {
            "taskset": taskset_id,
            "index": index,
            "task": printable(str(last.task.data.name or ""), 200),
            "stop_condition": last.stop_condition,
            "model_calls": sum(len(trace.calls) for trace in traces),
        }
    }
    return AgentResult(reward=float(reward), metrics=metrics, info=info)


def _prepare(
    taskset_id: str, overrides: str, index: int | None, seed: int | None
) -> tuple[Any, Any, int]:
    """The verifiers env for `taskset_id` (every seat played by `SwiftGymHarness` in the
    subprocess runtime, one interception server), the task to play and its index."""
    import verifiers.v1 as vf

    env = vf.load_environment(_resolved(taskset_id, overrides))
    tasks = _finite_tasks(taskset_id, overrides)
    if tasks is None:
        position = index if index is not None else seed or 0
        if position > MAX_INDEX:
            raise VerifiersEpisodeError(
                f"taskset {taskset_id!r} is infinite: its task is picked by a seed up to "
                f"{MAX_INDEX:,} (or by index); got seed {position}"
            )
        return env, _nth_task(taskset_id, overrides, position), position
    if not tasks:
        raise VerifiersEpisodeError(f"taskset {taskset_id!r} has no tasks")
    position = index if index is not None else (seed or 0) % len(tasks)
    if position >= len(tasks):
        raise VerifiersEpisodeError(
            f"taskset {taskset_id!r} has {len(tasks)} tasks: no index {position}"
        )
    return env, tasks[position], position


@functools.lru_cache(maxsize=8)
def _env_config(taskset_id: str, overrides: str) -> dict[str, Any]:
    import verifiers.v1 as vf

    seats = {
        name: {"harness": {"id": HARNESS_ID}, "runtime": {"type": "subprocess"}}
        for name, field in vf.env_config_type(taskset_id).model_fields.items()
        if isinstance(field.default, vf.AgentConfig)
    }
    return {
        "taskset": {**json.loads(overrides), "id": taskset_id},
        "interception": {"type": "server"},
        **seats,
    }


def _resolved(taskset_id: str, overrides: str) -> Any:
    """verifiers' checked env config; a taskset config it refuses (a required field the
    operator has not set) is a `SettingsError` that says how to set it."""
    import pydantic
    import verifiers.v1 as vf

    try:
        return vf.resolve_env_config(_env_config(taskset_id, overrides))
    except pydantic.ValidationError as error:
        raise config_error(taskset_id, error.errors()) from None


def _taskset(taskset_id: str, overrides: str) -> Any:
    import verifiers.v1 as vf

    return vf.load_taskset(_resolved(taskset_id, overrides).taskset)


@functools.lru_cache(maxsize=8)
def _finite_tasks(taskset_id: str, overrides: str) -> tuple[Any, ...] | None:
    """Every task of a finite taskset, in order, built once per process; None when the
    taskset is infinite (`INFINITE = True`)."""
    taskset = _taskset(taskset_id, overrides)
    return tuple(taskset) if taskset.bounded else None


@functools.lru_cache(maxsize=4096)
def _nth_task(taskset_id: str, overrides: str, position: int) -> Any:
    """Task `position` of an infinite taskset (its generator read that far), built once."""
    taskset = _taskset(taskset_id, overrides)
    return next(itertools.islice(iter(taskset), position, None))
