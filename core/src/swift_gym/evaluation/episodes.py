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
tool messages, then its observation as a user message if it has text (`tool_turns`), and the
turn's record keeps the calls and the results. A text env's episode is played and recorded
exactly as before tools existed.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import EnvUnavailableError, InvalidStepError, short_repr
from ..steps import as_step_result
from ..tool_turns import answer_messages, call_record, result_record
from ..tools import offered_tools
from . import defaults
from .errors import PolicyError
from .policies import reply_message
from .records import new_record
from .rollouts import sampling_seed

if TYPE_CHECKING:
    from ..env import Env, Message
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


def parsed_action(info: Mapping[str, Any]) -> Any:
    """The action the env read from the reply, if its info says (`action` or `parsed_action`)."""
    return info.get("action", info.get("parsed_action"))


def valid_action(info: Mapping[str, Any]) -> bool | None:
    """Whether the reply held a valid action: `metrics.valid_action`, else whether `action`
    is set; None when the env reports neither."""
    metrics = info.get("metrics")
    if isinstance(metrics, Mapping) and isinstance(metrics.get("valid_action"), (int, float)):
        return bool(metrics["valid_action"])
    if "action" in info or "parsed_action" in info:
        return parsed_action(info) is not None
    return None


def succeeded(info: Mapping[str, Any], done: bool, total_reward: float) -> bool:
    """`success` from the last info (or its `metrics`); else: the env ended the episode with
    some reward earned."""
    for source in (info, info.get("metrics")):
        if isinstance(source, Mapping) and isinstance(source.get("success"), (bool, int, float)):
            return bool(source["success"])
    return done and total_reward > 0


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


class TotalOverflow(ArithmeticError):
    """The step rewards add up to more than the largest float: no total can be recorded."""

    def __init__(self, turn: int, reward: float):
        super().__init__(
            f"step() at turn {turn}: the total reward overflowed (reward {reward:g} brings it "
            f"beyond {sys.float_info.max:.4g}); the record keeps the total before that turn"
        )


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
    turns: list[dict[str, Any]] = record["turns"]
    env: Env | None = None
    info: Mapping[str, Any] = {}
    done = False
    stage = "building the env"
    try:
        if build is None:
            env = registry.get_env_class(spec.env)(spec.env_config)
        else:
            env = await build(spec.env, spec.env_config)
        stage = "the turn limit"
        limit = record["max_turns"] = turn_limit(env, max_turns)
        stage = "reset()"
        observation, reset_info, system_prompt = await env.reset()
        record.update(system_prompt=system_prompt, observation=observation, reset_info=reset_info)
        stage = "tools()"
        tools = offered_tools(env)
        if tools:
            record["tools"] = list(tools)
        messages: list[Message] = (
            [{"role": "system", "content": system_prompt}] if system_prompt else []
        )
        messages.append({"role": "user", "content": observation})
        context = rewritten_context(env)
        if context is not None:  # an agent program's first call: more than system and user
            messages[:] = [dict(message) for message in context]
        rng = episode_rng(spec)
        while not done and len(turns) < limit:
            stage = "the policy"
            details: dict[str, Any] = {}
            if callable(detailed):
                reply, details = await detailed(env, messages, rng)
            else:
                reply = await policy.reply(env, messages, rng)
            text, calls, message = reply_message(reply, "reply()")
            messages.append(message)
            stage = "step()"
            value = await env.step(messages)
            turn: dict[str, Any] = {"turn": len(turns) + 1, "reply": text}
            tool_results = None
            if tools or calls:  # the record keeps the calls, and the results in call order
                result = as_step_result(value, calls if tools else None)
                observation, reward = result.observation, result.reward
                done, info = result.done, result.info
                messages.extend(answer_messages(result, calls))
                turn["tool_calls"] = [call_record(call) for call in calls]
                results = {r.tool_call_id: result_record(r) for r in result.tool_results}
                tool_results = [results[call.id] for call in calls if call.id in results]
            else:  # a text env: as ms-swift's gym loop plays it
                observation, reward, done, info = value
                messages.append({"role": "user", "content": observation})
            context = None if done else rewritten_context(env)
            if context is not None:  # an agent program rewrote its history: show exactly it
                messages[:] = [dict(message) for message in context]
                tools = offered_tools(env)
                if tools:
                    record["tools"] = list(tools)
            turn.update(
                action=parsed_action(info),
                valid_action=valid_action(info),
                observation=observation,
            )
            if tool_results is not None:
                turn["tool_results"] = tool_results
            turn.update(reward=reward, done=bool(done), info=info, **details)
            turns.append(turn)
            total = record["total_reward"] + float(reward)
            if math.isinf(total) and math.isfinite(float(reward)):
                raise TotalOverflow(len(turns), float(reward))
            record["total_reward"] = total
    except InvalidStepError as error:  # what step() returned: the message names it
        record.update(status="error", error=str(error))
    except TotalOverflow as error:
        record.update(status="error", error=str(error))
    except PolicyError as error:
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
    record["num_turns"] = len(turns)
    if record["status"] is None:
        record["status"] = final_status(info, done)
        record["success"] = succeeded(info, done, record["total_reward"])
    return record


def rewritten_context(env: Any) -> list[Message] | None:
    """The chat `env` replaced after its reset or last step (`Env.rewritten_context`)."""
    method = getattr(env, "rewritten_context", None)
    return method() if callable(method) else None


def final_status(info: Mapping[str, Any], done: bool) -> str:
    """An episode's status from its last info: the env's `status` (else "done") when the env
    ended it, "max_turns" when the turn limit did. Training trajectories use the same rule."""
    if not done:
        return "max_turns"
    status = info.get("status")
    return status if isinstance(status, str) and status else "done"
