"""The `swift_gym` multi-turn scheduler: ms-swift's GYMScheduler, keeping what it drops.

Same flags and hooks as `gym_scheduler`, plus:
- each step's `info` (and the env's `metrics`) reach `rollout_infos`, hence completions.jsonl and
  reward functions;
- an env whose episode is cut off by `max_turns` is closed (GYMScheduler keeps it forever);
- an env that raises in reset or step (or returns garbage, or, with `SWIFT_GYM_STEP_TIMEOUT`
  set, takes longer than that many seconds) ends only its own episode, with reward 0 and the
  error recorded in `rollout_infos['env_error']`; the rest of the batch goes on;
- with `SWIFT_GYM_TRAJECTORIES=DIR` set, each finished episode (replies, observations, infos)
  is written to this process's trajectory file under DIR (see `trajectory_log`);
- an env that offers tools (`Env.tools()`) plays with them: each request carries the tools, so
  the `--agent_template` renders them; `step` gets the engine's parsed tool calls on the reply
  (OpenAI-shaped `tool_calls`); each `ToolResult` comes back as a `{"role": "tool"}` message,
  which the template renders as a tool response and keeps out of the loss. The calls and
  results reach `rollout_infos` and the trajectory files. Text envs play exactly as before.
- an env that replaces the chat (`Env.rewritten_context`: an `AgentEnv` whose program
  rewrote its history) has the next turn play exactly its messages (`contexts`).
- an episode whose next prompt would leave its engine no room to generate (`max_model_len`)
  ends before that turn, as a turn limit would end it, with `rollout_infos['context_full']`
  (`context_room`); ms-swift would end the whole run;
- with `SWIFT_GYM_RAY_ADDRESS` set, each episode's env is built and played inside a Ray actor
  on that cluster (`swift_gym.ray`), found by its swift-gym name; the actors are reused across
  batches and killed when the process exits.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
from copy import deepcopy
from typing import Any

from ..agent.context import signature
from ..env import Env
from ..ray.placement import process_placement
from ..replies import tool_calls
from ..steps import StepResult, as_step_result
from ..tools.toolset import ToolCall, ToolResult, offered_tools
from ..tools.turns import (
    call_messages,
    call_record,
    in_call_order,
    result_record,
    tool_messages,
)
from .context_room import ContextRoom, Fit, added_tokens
from .contexts import replacement
from .factories import drive
from .tool_turn_ids import response_ids, trimmed_turn
from .trajectory_log import TrajectoryLog, calling_trainer, encoded_turn, weak_reference

logger = logging.getLogger("swift_gym")

TIMEOUT_VARIABLE = "SWIFT_GYM_STEP_TIMEOUT"


def jsonable(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-serialisable data; what is not becomes its (short) repr."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if depth < 20 and isinstance(value, dict):
        return {_text(key): jsonable(item, depth + 1) for key, item in value.items()}
    if depth < 20 and isinstance(value, (list, tuple)):
        return [jsonable(item, depth + 1) for item in value]
    text = _text(value, repr)
    return text if len(text) <= 200 else text[:197] + "..."


def _text(value: Any, convert: Any = str) -> str:
    """`convert(value)`, or a placeholder when the object's own str/repr raises."""
    try:
        return str(convert(value))
    except Exception:
        return f"<unrepresentable {type(value).__name__}>"


def plain_copy(value: Any) -> Any:
    """A deep copy of chat messages: dicts, lists and scalars rebuilt directly (several times
    faster than `deepcopy`, which the scheduler paid on every turn), anything else deep-copied."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        copied = value.copy()  # a message's values are mostly strings: kept as they are
        for key, item in copied.items():
            if type(item) is not str:
                copied[key] = plain_copy(item)
        return copied
    if kind is list:
        return [plain_copy(item) for item in value]
    return deepcopy(value)


def step_timeout() -> float | None:
    """Seconds one reset or step may take, from SWIFT_GYM_STEP_TIMEOUT; None for no limit."""
    raw = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    try:
        value = float(raw) if raw else None
    except ValueError:
        logger.warning("swift-gym: ignoring %s=%r: not a number of seconds", TIMEOUT_VARIABLE, raw)
        return None
    return value if value and value > 0 else None


def _checked_step(result: Any) -> tuple[str, float, bool, dict[str, Any]]:
    """The env's step result, or TypeError saying what is wrong with it."""
    if not (isinstance(result, tuple) and len(result) == 4):
        raise TypeError(
            f"step() must return (observation, reward, done, info), got {result!r:.200}"
        )
    observation, reward, done, info = result
    if not isinstance(observation, str):
        raise TypeError(f"step() observation must be a str, got {type(observation).__name__}")
    if (
        isinstance(reward, bool)
        or not isinstance(reward, (int, float))
        or not math.isfinite(reward)
    ):
        raise TypeError(f"step() reward must be a finite number, got {reward!r:.80}")
    return observation, float(reward), bool(done), info if isinstance(info, dict) else {}


def _checked_tool_step(result: Any, calls: list[ToolCall]) -> StepResult:
    """A tool env's step result (a StepResult, or a 4-tuple when it answers no call), checked
    against the reply's calls; InvalidStepError or TypeError saying what is wrong."""
    step = as_step_result(result, calls)
    if not math.isfinite(step.reward):
        raise TypeError(f"step() reward must be a finite number, got {step.reward!r:.80}")
    return step


def ms_swift_tool_messages(results: list[ToolResult], observation: str) -> list[dict[str, Any]]:
    """The step's answer as ms-swift tool messages, in call order.

    ms-swift's templates pair each query turn with an assistant turn, so a user message cannot
    follow tool messages: an observation the env also gave goes after a blank line at the end
    of the last tool message.
    """
    messages = tool_messages(results)
    if observation:
        last = messages[-1]
        last["content"] = f"{last['content']}\n\n{observation}" if last["content"] else observation
    return messages


def make_scheduler_class(base: type) -> type:
    """The `swift_gym` scheduler, built on ms-swift's `GYMScheduler` once ms-swift is imported."""

    class SwiftGymScheduler(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self._records: dict[str, dict[str, Any]] = {}
            self._timeout = step_timeout()
            self._logged: set[tuple[str, str, str]] = set()
            trainer = calling_trainer()
            self._trainer = weak_reference(trainer)
            self._trajectories = TrajectoryLog.from_environment(trainer)
            self._room: ContextRoom | bool | None = None  # None: not looked up yet
            self._reply_ids: dict[str, list[list[int]]] = {}
            self._pending_tools: dict[str, list[dict[str, Any]]] = {}
            self._replies: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {}
            self._pending_context: dict[str, list[dict[str, Any]]] = {}
            self._keep_text: set[str] = set()

        async def _guarded(self, awaitable: Any) -> Any:
            if self._timeout is None:
                return await awaitable
            return await asyncio.wait_for(awaitable, self._timeout)

        def _fail(self, uuid: str, stage: str, error: BaseException) -> None:
            record = self._records.setdefault(uuid, _new_record(None))
            kind = (
                "TimeoutError" if isinstance(error, asyncio.TimeoutError) else type(error).__name__
            )
            detail = f"timed out after {self._timeout}s" if kind == "TimeoutError" else _text(error)
            record["error"] = f"{stage} failed: {kind}: {detail}"
            key = (str(record["env"]), stage, kind)
            if key not in self._logged:  # once per env, stage and kind: a bad batch is one line
                self._logged.add(key)
                logger.warning(
                    "swift-gym: env %s %s (episode ended with reward 0; further "
                    "errors of this kind are only recorded)",
                    record["env"],
                    record["error"],
                )

        def _warn_row_tools(self, env_name: str) -> None:
            key = (env_name, "tools", "row")
            if key not in self._logged:  # once per env
                self._logged.add(key)
                logger.warning(
                    "swift-gym: env %s offers tools its dataset rows do not carry (a `tools` "
                    "column with the same schemas): ms-swift encodes the prompt it trains on, "
                    "and in colocate mode the first turn, from the row's `tools`; later turns "
                    "get the env's. Give the rows the env's tools",
                    env_name,
                )

        async def on_trajectory_start(self, requests: list[Any]) -> None:
            await asyncio.gather(*(self._start(request) for request in requests))

        async def _start(self, request: Any) -> None:
            uuid = request.uuid
            if uuid in self._envs:
                await self._close_and_remove(uuid)
            env_config = (getattr(request, "data_dict", None) or {}).get("env_config", {})
            # the name ms-swift's _create_env uses: an explicit null is the name, not --gym_env
            name = (
                env_config.get("name", self.gym_env_name)
                if isinstance(env_config, dict)
                else self.gym_env_name
            )
            record = _new_record(name if isinstance(name, str) else repr(name))
            self._records[uuid] = record
            if self._trajectories is not None:
                record["env_config"] = jsonable(env_config)
            env = None
            try:
                placement = process_placement()  # None unless SWIFT_GYM_RAY_ADDRESS is set
                if placement is None:
                    env = self._create_env(env_config)
                else:  # waits while the cluster is full: not the step timeout's business
                    env = await placement.open(name, env_config)
                observation, info, system_message = await self._guarded(env.reset(request))
                if not isinstance(observation, str):
                    raise TypeError(f"reset() observation must be a str, got {observation!r:.80}")
                if system_message is not None and not isinstance(system_message, str):
                    raise TypeError(
                        "reset() system prompt must be a str or None, "
                        f"got {type(system_message).__name__}"
                    )
                drive(env)  # this scheduler plays tool envs: no gym_scheduler guard
                offered = offered_tools(env) if callable(getattr(env, "tools", None)) else None
                tools = list(offered) if offered is not None else []
            except Exception as error:  # this episode ends; the batch goes on
                self._fail(uuid, "reset", error)
                await _close_quietly(env, self._timeout)
                return
            messages = [{"role": "system", "content": system_message}] if system_message else []
            messages.append({"role": "user", "content": observation})
            if _rewrites(env):
                record["rewrites"] = True
                context = env.rewritten_context()
                if context:  # the program's first call was more than a system and a user message
                    messages = replacement(context, []).messages
            request.messages = messages
            if tools and offered is not None:  # what the --agent_template renders in the prompt
                if getattr(request, "tools", None) != tools:
                    self._warn_row_tools(record["env"])
                request.tools = offered.copy()  # ms-swift's to change, not the env's
                record["tools"] = tools
            self._envs[uuid] = env
            self._total_rewards[uuid] = 0.0
            self._step_rewards[uuid] = []
            self._pending_obs[uuid] = None
            record["reset_info"] = jsonable(info)
            record["system_prompt"] = system_message
            record["observation"] = observation

        async def on_turn_end(self, request: Any, response_choice: Any, current_turn: int) -> dict:
            uuid = request.uuid
            env = self._envs.get(uuid)
            if env is None:  # its reset failed: report once, then forget it
                infos = self._rollout_infos(uuid, True)
                self._finished(uuid, False)
                self._records.pop(uuid, None)
                return {"done": True, "rollout_infos": infos}
            tools = (self._records.get(uuid) or {}).get("tools")
            calls: list[ToolCall] = []
            results: list[ToolResult] = []
            try:
                messages = plain_copy(request.messages)
                if tools:  # the engine parsed them with the --agent_template
                    calls = tool_calls([response_choice.message])
                    if calls and messages and messages[-1].get("role") == "assistant":
                        messages[-1]["tool_calls"] = call_messages(calls)
                result = await self._guarded(env.step(messages))
                if tools or isinstance(result, StepResult):
                    step = _checked_tool_step(result, calls)
                    observation, reward, done, info = (
                        step.observation,
                        step.reward,
                        step.done,
                        step.info,
                    )
                    results = in_call_order(step.tool_results, calls)
                else:
                    observation, reward, done, info = _checked_step(result)
            except Exception as error:  # this episode ends with reward 0; the batch goes on
                self._fail(uuid, "step", error)
                self._total_rewards[uuid] = 0.0
                infos = self._rollout_infos(uuid, True)
                self._finished(uuid, False)
                await self._close_and_remove(uuid)
                return {"done": True, "rollout_infos": infos}
            self._total_rewards[uuid] = self._total_rewards.get(uuid, 0.0) + reward
            self._step_rewards.setdefault(uuid, []).append(reward)
            record = self._records[uuid]
            context = None
            if record.get("rewrites"):
                context = self._note_reply(uuid, env, messages, request, done)
            if context is not None:  # the next turn plays the env's chat, not an extension
                self._pending_obs[uuid] = None
                record["tool_calls"].append([call_record(call) for call in calls])
                record["tool_results"].append([result_record(result) for result in results])
            elif tools:
                self._pending_obs[uuid] = None if done or results else (observation or None)
                if results and not done:
                    self._pending_tools[uuid] = ms_swift_tool_messages(results, observation)
                record["tool_calls"].append([call_record(call) for call in calls])
                record["tool_results"].append([result_record(result) for result in results])
            else:
                self._pending_obs[uuid] = None if done else observation
            info = jsonable(info)
            record["step_infos"].append(info)
            if self._trajectories is not None:  # encoded now, while all of it is fresh
                reply = request.messages[-1].get("content") if request.messages else None
                turns = record["turns"]
                tool_turn = (
                    {
                        "tool_calls": record["tool_calls"][-1],
                        "tool_results": record["tool_results"][-1],
                    }
                    if tools
                    else {}
                )
                turns.append(
                    encoded_turn(
                        len(turns) + 1, reply, observation, reward, done, info, **tool_turn
                    )
                )
            ended = done or bool(self.max_turns and current_turn >= self.max_turns)
            fit = None if ended else self._next_prompt_fit(request, response_choice, context)
            cut = fit is not None and not fit.fits
            if cut:
                self._context_full(uuid, current_turn, fit)
            infos = self._rollout_infos(uuid, done)
            if ended or cut:
                self._finished(uuid, done)
                await self._close_and_remove(uuid)  # GYMScheduler keeps envs cut off by max_turns
            return {"done": done or cut, "rollout_infos": infos}

        def _context_room(self) -> ContextRoom | None:
            """The engine's room; looked up at the first turn, as the trainer builds its
            engine after its scheduler. None when nothing says it."""
            if self._room is None:
                engine = self.infer_engine
                if engine is None and self._trainer is not None:
                    engine = getattr(self._trainer(), "engine", None)
                self._room = ContextRoom.of(engine) or False
            return self._room or None

        def _next_prompt_fit(
            self, request: Any, response_choice: Any, context: list | None
        ) -> Fit | None:
            """Whether the episode's next prompt leaves its engine room to generate; None
            when the engine does not say how much room it has."""
            room = self._context_room()
            if room is None:
                return None
            try:
                return self._fit(room, request, response_choice, context)
            except Exception as error:  # a check that fails must not fail the batch
                self._room = False
                logger.warning(
                    "swift-gym: counting a prompt's tokens failed (%s: %s): episodes are no "
                    "longer ended before a prompt that leaves no room to generate",
                    type(error).__name__,
                    _text(error),
                )
                return None

        def _fit(self, room: ContextRoom, request: Any, response_choice: Any, context: Any) -> Fit:
            uuid = request.uuid
            if context is not None:  # the env replaced the chat: counted, as text
                return room.next_prompt(uuid, None, lambda: self._replaced_prompt(request, context))
            last = request.messages[-1] if request.messages else {}
            newest: list[int] = []
            if last.get("role") == "assistant":  # the ids ms-swift keeps for this reply
                newest = list(self.get_response_token_data(request, response_choice)[0])
            observation = self._pending_obs.get(uuid)
            new = self._pending_tools.get(uuid) or (
                [{"role": "user", "content": observation}] if observation is not None else []
            )
            added = added_tokens(newest, last.get("content"), new)
            return room.next_prompt(
                uuid, added, lambda: self._extended_prompt(request, new, newest)
            )

        def _extended_prompt(
            self, request: Any, new: list[dict[str, Any]], newest: list[int]
        ) -> tuple[list[dict[str, Any]], Any]:
            """The next prompt as the engine gets it: the chat with `new` messages, each
            reply as the ids ms-swift sends in its place (as text if they cannot be matched;
            a tool turn's newest reply keeps the end token `_tool_turn` trims: one over)."""
            messages = plain_copy(request.messages) + plain_copy(new)
            replies = [*self._reply_ids.get(request.uuid, []), newest]
            positions = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
            if len(positions) == len(replies) and all(replies):
                for position, ids in zip(positions, replies, strict=True):
                    messages[position]["content"] = list(ids)
            return messages, getattr(request, "tools", None)

        def _replaced_prompt(self, request: Any, context: list) -> tuple[list, Any]:
            swap = replacement(context, self._replies.get(request.uuid, []))
            offered = (self._records.get(request.uuid) or {}).get("offered")
            return plain_copy(swap.messages), offered or getattr(request, "tools", None)

        def _context_full(self, uuid: str, turn: int, fit: Fit) -> None:
            """Record (and log once per env) an episode ended before a prompt too long."""
            record = self._records[uuid]
            record["context_full"] = {
                "turn": turn + 1,
                "prompt_tokens": fit.tokens,
                "counted": fit.counted,
                "max_model_len": fit.max_model_len,
            }
            key = (str(record["env"]), "context", "full")
            if key not in self._logged:
                self._logged.add(key)
                logger.warning(
                    "swift-gym: env %s: an episode ended before turn %d, whose prompt (%d "
                    "tokens) leaves no room to generate within max_model_len %d; its reward "
                    "is what it earned so far. Shorten the env's observations or --max_turns, "
                    "or give a longer --vllm_max_model_len (further episodes ended this way "
                    "are only recorded, in rollout_infos['context_full'])",
                    record["env"],
                    turn + 1,
                    fit.tokens,
                    fit.max_model_len,
                )

        def step(self, request: Any, response_choice: Any, current_turn: int) -> dict:
            """The next turn's messages: the tool results as tool messages, else the
            observation as a user message (GYMScheduler's step); or the chat the env
            replaced."""
            uuid = request.uuid
            context = self._pending_context.pop(uuid, None)
            if context is not None:
                self._replace(request, context)
            pending = self._pending_tools.pop(uuid, None)
            trimmed = self._tool_turn(request, response_choice, pending) if pending else None
            if pending:
                request.messages.extend(pending)
            result = super().step(request, response_choice, current_turn)
            return {**result, **trimmed} if trimmed else result

        def _tool_turn(self, request: Any, response_choice: Any, pending: list) -> dict | None:
            """The reply's ids less the end token its tool response writes again
            (`tool_turn_ids`); None to keep them as sampled."""
            from swift.rollout.agent_loop import extract_logprobs_from_choice

            template = self._template or getattr(self.infer_engine, "template", None)
            if template is None or not response_choice.token_ids:
                return None
            reply = request.messages[-1].get("content") if request.messages else None
            following = response_ids(template, reply if isinstance(reply, str) else "", pending)
            ids, mask = self.get_response_token_data(request, response_choice)
            logprobs = extract_logprobs_from_choice(response_choice)
            return trimmed_turn(ids, mask, logprobs, following)

        def _note_reply(
            self, uuid: str, env: Any, messages: list[Any], request: Any, done: bool
        ) -> list[dict[str, Any]] | None:
            """Keep the reply (to find it in a replaced chat); the env's replaced chat, if any."""
            if request.messages:
                replies = self._replies.setdefault(uuid, [])
                replies.append((signature(messages[-1]), request.messages[-1]))
            context = None if done else env.rewritten_context()
            if context is not None:
                self._pending_context[uuid] = context
                record = self._records[uuid]
                offered = offered_tools(env)
                record["tools"] = list(offered) or record.get("tools")
                record["offered"] = offered
            return context

        def _replace(self, request: Any, context: list[dict[str, Any]]) -> None:
            uuid = request.uuid
            swap = replacement(context, self._replies.get(uuid, []))
            request.messages = swap.messages
            if not swap.keeps_newest:  # ms-swift would give the newest reply's ids to another
                self._keep_text.add(uuid)
            record = self._records.get(uuid) or {}
            offered = record.pop("offered", None)
            if offered:
                request.tools = offered.copy()
            key = (str(record.get("env")), "context", "misaligned")
            if not swap.aligned and key not in self._logged:
                self._logged.add(key)
                logger.warning(
                    "swift-gym: env %s replaced its chat with assistant messages that are not "
                    "the policy's latest replies in order; ms-swift trains each assistant "
                    "message of the final chat on the tokens sampled at the turn in the same "
                    "place from the end, so some are trained on other turns' tokens. Keep "
                    "replies word for word, or drop them (see docs/agents.md)",
                    record.get("env"),
                )

        def set_assistant_message_token_ids(self, request: Any, token_ids: list[int]) -> None:
            """ms-swift freezes the newest reply as its ids, in the last assistant message:
            not when the env's replaced chat dropped that reply (another would get them)."""
            if request.uuid in self._keep_text:
                self._keep_text.discard(request.uuid)
                return
            super().set_assistant_message_token_ids(request, token_ids)
            if self._room:  # kept to count the next prompt as the engine gets it
                kept = self._reply_ids.setdefault(request.uuid, [])
                replies = sum(1 for m in request.messages if m.get("role") == "assistant")
                del kept[max(replies - 1, 0) :]  # a continued reply replaces its ids
                kept.append(token_ids)  # ms-swift's list, only read here

        def _finished(self, uuid: str, done: bool) -> None:
            """The episode ended: into the trajectory file, if one was asked for."""
            record = self._records.get(uuid)
            if self._trajectories is None or record is None:
                return
            rewards = self._step_rewards.get(uuid, [])
            total = self._total_rewards.get(uuid, 0.0)
            self._trajectories.episode_finished(record, rewards, total, done)

        def _rollout_infos(self, uuid: str, done: bool) -> dict[str, Any]:
            record = self._records.get(uuid) or _new_record(self.gym_env_name)
            steps = record["step_infos"]
            metrics = steps[-1].get("metrics") if steps else None
            tools = {}
            if record.get("tools"):  # the same growing lists each turn, as step_infos
                tools = {
                    "tools": record["tools"],
                    "tool_calls": record["tool_calls"],
                    "tool_results": record["tool_results"],
                }
            return {
                "total_reward": self._total_rewards.get(uuid, 0.0),
                "step_rewards": list(self._step_rewards.get(uuid, [])),
                "gym_done": done,
                "env_name": record["env"],
                "reset_info": record["reset_info"],
                "step_infos": steps,  # the same growing list each turn: no O(turns^2) copies
                "env_metrics": metrics if isinstance(metrics, dict) else {},
                "env_error": record["error"],
                "context_full": record["context_full"],
                **tools,
            }

        async def _close_and_remove(self, uuid: str) -> None:
            await _close_quietly(self._envs.pop(uuid, None), self._timeout)
            await super()._close_and_remove(uuid)  # the env is gone: this clears the rest
            self._pending_tools.pop(uuid, None)
            self._records.pop(uuid, None)
            self._replies.pop(uuid, None)
            self._pending_context.pop(uuid, None)
            self._keep_text.discard(uuid)
            self._reply_ids.pop(uuid, None)
            if self._room:
                self._room.forget(uuid)

    SwiftGymScheduler.__doc__ = (
        "GYMScheduler that records each step's info and metrics, and isolates env failures."
    )
    return SwiftGymScheduler


def _rewrites(env: Any) -> bool:
    """Whether `env` may replace the chat (it overrides `Env.rewritten_context`)."""
    method = getattr(type(env), "rewritten_context", None)
    return method is not None and method is not Env.rewritten_context


def _new_record(env_name: Any) -> dict[str, Any]:
    return {
        "env": env_name,
        "reset_info": None,
        "step_infos": [],
        "error": None,
        "context_full": None,
        "turns": [],
        "tools": None,
        "tool_calls": [],
        "tool_results": [],
    }


async def _close_quietly(env: Any, timeout: float | None = None) -> None:
    if env is None:
        return
    try:
        await asyncio.wait_for(env.close(), timeout)
    except Exception as error:  # closing a failed env must not fail the batch either
        logger.debug("swift-gym: closing a failed env raised %r", error)
