"""One episode, played to the end and recorded: the loop ms-swift's gym scheduler runs.

The smallest unit of the evaluation library: `runner` plays many of these at once.

reset -> (system prompt, first observation, and the tools the env offers); then each turn the
policy replies to the whole chat, the env steps on it, and its observation joins the chat, until
the env says done or
`max_turns` replies were given (ms-swift's `--max_turns`; when the caller gives none, the env's
own `max_turns_hint()`, else `defaults.MAX_TURNS`). Whatever goes wrong (the env raises,
the policy fails) ends only this episode, with status "error" and the reason. An episode the run
stopped before (see `runner`) is recorded with status `NOT_PLAYED` (the record: `records`).

An env may replace the chat after reset or a step (`Env.rewritten_context`: an agent program
that rewrote its history); the policy then replies to exactly those messages.

In an env that offers tools, a reply may hold tool calls: the env's results join the chat as
tool messages, and the turn's record keeps the calls and the results. The rules (the checks of
what the env returned, the chat's layout, the records, the status) are the `episode` room's,
the same in training, `play` and `serve`.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..episode import Episode, Reply, ReplyShapeError, play_turn, rewritten_context
from ..episode.records import new_record
from ..errors import EnvUnavailableError, InvalidStepError, short_repr
from ..tools.toolset import offered_tools
from . import defaults
from .errors import PolicyError
from .rollouts import sampling_seed

if TYPE_CHECKING:
    from ..env import Env
    from ..registry import Registry
    from .policies import Policy


@dataclass(frozen=True)
class EpisodeSpec:
    """What to play: the env (resolved name) and the env_config as a dataset row gives it;
    with several rollouts per seed, which episode of the run without them (`task`: the seed's
    or row's) and which of its rollouts this is (`rollout`, from 0)."""

    index: int
    env: str
    env_config: dict[str, Any] = field(default_factory=dict)
    task: int | None = None
    rollout: int | None = None

    def rollout_fields(self) -> dict[str, Any]:
        """What its record says of the rollout: `task`, `rollout` and `sampling_seed` (the
        seed of the policy's draws, `rollouts.sampling_seed`); nothing for a lone episode."""
        if self.rollout is None or self.task is None:
            return {}
        seed = sampling_seed(self.task, self.env_config.get("seed"), self.rollout)
        return {"task": self.task, "rollout": self.rollout, "sampling_seed": seed}


def episode_rng(spec: EpisodeSpec) -> random.Random:
    """The episode's private RNG (never the global one): same index and seed, same draws; a
    rollout's, from its own sampling seed (so its draws differ from its seed's other rollouts)."""
    fields = spec.rollout_fields()
    if fields:
        return random.Random(fields["sampling_seed"])
    return random.Random(f"swift-gym/eval/{spec.index}/{spec.env_config.get('seed')}")


def turn_limit(env: Env, max_turns: int | None) -> int:
    """`max_turns` if given, else the env's natural horizon, else `defaults.MAX_TURNS`."""
    if max_turns is not None:
        return max_turns
    hint = env.max_turns_hint()
    if hint is None:
        return defaults.MAX_TURNS
    if isinstance(hint, bool) or not isinstance(hint, int) or hint < 1:
        raise ValueError(
            f"max_turns_hint() returned {short_repr(hint, 40)}, not a whole number of at "
            "least 1 (or None)"
        )
    return hint


async def run_episode(
    spec: EpisodeSpec,
    policy: Policy,
    max_turns: int | None,
    registry: Registry,
    on_env_down: Callable[[str], None] | None = None,
    build: Callable[[str, dict[str, Any]], Awaitable[Env]] | None = None,
) -> dict[str, Any]:
    """Play `spec` with `policy`, at most `max_turns` replies (None: see `turn_limit`); the
    trajectory record (see `records`). `on_env_down` hears why, when the env raised
    `EnvUnavailableError` (its server is down). `build(name, env_config)` makes the env
    elsewhere (a Ray actor's stand-in); by default it is built here, from `registry`."""
    record = new_record(spec.index, spec.env, spec.env_config, policy.name, spec.rollout_fields())
    settings = getattr(policy, "settings", None)
    if callable(settings):
        record["policy_settings"] = settings()
    detailed = getattr(policy, "reply_with_details", None)
    episode = Episode()
    env: Env | None = None
    stage = "building the env"
    try:
        if build is None:
            env = registry.get_env_class(spec.env)(spec.env_config)
        else:
            env = await build(spec.env, spec.env_config)
        stage = "the turn limit"
        limit = record["max_turns"] = turn_limit(env, max_turns)
        stage = "reset()"
        reset = await env.reset()
        stage = "tools()"
        tools = offered_tools(env)
        episode.open(reset, tools, rewritten_context(env))
        record.update(
            system_prompt=episode.system_prompt,
            observation=episode.observation,
            reset_info=episode.reset_info,
        )
        if tools:
            record["tools"] = list(tools)
        rng = episode_rng(spec)
        while not episode.done and len(episode.turns) < limit:
            stage = "the policy"
            details: dict[str, Any] = {}
            if callable(detailed):
                value, details = await detailed(env, episode.messages, rng)
            else:
                value = await policy.reply(env, episode.messages, rng)
            reply = Reply.of(value, "reply()")
            stage = "step()"
            turn = await play_turn(episode, env, reply)
            if turn.context is not None and episode.tools:
                record["tools"] = list(episode.tools)
            if turn.record is not None:  # always here: evaluate keeps records
                turn.record.update(details)
    except InvalidStepError as error:  # what reset() or step() returned: the message names it
        record.update(status="error", error=str(error))
    except (ReplyShapeError, PolicyError) as error:
        record.update(status="error", error=f"policy {policy.name}: {error}")
    except Exception as error:  # an env bug ends this episode only, with the reason
        record.update(status="error", error=f"{stage} raised {type(error).__name__}: {error}")
        if isinstance(error, EnvUnavailableError) and on_env_down is not None:
            on_env_down(str(error))
    finally:
        if env is not None:
            try:
                await env.close()
            except Exception as error:
                record["error"] = (
                    record["error"] or f"close() raised {type(error).__name__}: {error}"
                )
    record["turns"] = episode.turns
    record["num_turns"] = len(episode.turns)
    record["total_reward"] = episode.total_reward  # an overflowing turn left it as before
    if record["status"] is None:
        record["status"] = episode.status()
        record["success"] = episode.succeeded()
    return record
