"""The `swift_gym` multi-turn scheduler: ms-swift's GYMScheduler, keeping what it drops.

An adapter: each episode is an `episode.Episode` (the checks, the chat's layout, the turn
records, the rewards: the rules `evaluate`, `play` and `serve` share), held with ms-swift's side
of it in one `LiveEpisode` per uuid. Same flags and hooks as `gym_scheduler`, plus:
- each step's `info` (and the env's `metrics`) reach `rollout_infos`, hence completions.jsonl and
  reward functions;
- an env whose episode is cut off by `max_turns` is closed (GYMScheduler keeps it forever);
- an env that raises in reset or step (or returns what `episode.checks` refuses, or, with
  `SWIFT_GYM_STEP_TIMEOUT` set, takes longer than that many seconds) ends only its own episode,
  with reward 0 and the error in `rollout_infos['env_error']`; the rest of the batch goes on;
- with `SWIFT_GYM_TRAJECTORIES=DIR` set, each finished episode is written to this process's
  trajectory file under DIR (see `trajectory_log`);
- an env that offers tools (`Env.tools()`) plays with them: each request carries the tools, so
  the `--agent_template` renders them; `step` gets the engine's parsed tool calls on the reply;
  each `ToolResult` comes back as a `{"role": "tool"}` message (text the env also gave joins
  the last one: `episode.layout`), which the template keeps out of the loss;
- an env that replaces the chat (`Env.rewritten_context`: an `AgentEnv` whose program rewrote
  its history) has the next turn play exactly its messages (`contexts`);
- an episode whose next prompt would leave its engine no room to generate (`max_model_len`)
  ends before that turn, with `rollout_infos['context_full']` (`next_prompt`); ms-swift would
  end the whole run;
- with `SWIFT_GYM_RAY_ADDRESS` set, each episode's env is built and played inside a Ray actor
  on that cluster (`swift_gym.placement`).

`SwiftGymScheduler` is a mixin defined here; `registration` registers it on top of ms-swift's
`GYMScheduler` (`scheduler_class`) once ms-swift is imported, so the core never imports it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..episode import Reply, replaces_chat, tools_of
from ..episode.layout import signature
from ..placement import process_placement
from ..replies import tool_calls
from ..tools.turns import call_record, result_record
from .contexts import replacement
from .env_calls import close_quietly, guarded, step_timeout
from .factories import EnvFactory
from .live_episode import LiveEpisode, jsonable, plain_copy, text_of
from .next_prompt import NextPrompt
from .tool_turn_ids import response_ids, trimmed_turn
from .trajectory_log import TrajectoryLog, encoded_turn, weak_reference

logger = logging.getLogger("swift_gym")

if TYPE_CHECKING:

    class _GymScheduler:
        """What the mixin uses of ms-swift's GYMScheduler (ms-swift's types are Any here)."""

        gym_env_name: Any
        max_turns: int | None
        infer_engine: Any
        _template: Any

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...
        def get_response_token_data(self, request: Any, choice: Any) -> Any: ...
        def _create_env(self, env_config: Any) -> Any: ...
        def set_assistant_message_token_ids(self, request: Any, ids: list[int]) -> None: ...
        async def _close_and_remove(self, uuid: str) -> None: ...

else:
    _GymScheduler = object


class SwiftGymScheduler(_GymScheduler):
    """GYMScheduler that records each step's info and metrics, and isolates env failures."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._live: dict[str, LiveEpisode] = {}
        self._timeout = step_timeout()
        self._logged: set[tuple[str, str, str]] = set()
        self._trainer: Any = None
        """The trainer that built this scheduler, weakly (`attach_trainer`); None in a
        `swift rollout` worker."""
        self._trajectories = TrajectoryLog.from_environment()
        self._prompt = NextPrompt()

    def attach_trainer(self, trainer: Any) -> None:
        """Called by `trainer_seam` once ms-swift's trainer has built this scheduler: the
        trajectory records' step and rank, and the colocate engine, are the trainer's."""
        self._trainer = weak_reference(trainer)
        if self._trajectories is not None:
            self._trajectories.attach(trainer)

    async def _guarded(self, awaitable: Any) -> Any:
        return await guarded(awaitable, self._timeout)

    def _warn_once(self, key: tuple[str, str, str], message: str, *args: Any) -> None:
        """Log `message` once per key (an env, what, how): a bad batch is one line."""
        if key not in self._logged:
            self._logged.add(key)
            logger.warning(message, *args)

    def _fail(self, live: LiveEpisode, stage: str, error: BaseException) -> None:
        timed_out = isinstance(error, asyncio.TimeoutError)
        kind = "TimeoutError" if timed_out else type(error).__name__
        detail = f"timed out after {self._timeout}s" if timed_out else text_of(error)
        live.error = f"{stage} failed: {kind}: {detail}"
        self._warn_once(
            (live.name, stage, kind),
            "swift-gym: env %s %s (episode ended with reward 0; further errors of this kind "
            "are only recorded)",
            live.name,
            live.error,
        )

    def _create_env(self, env_config: Any) -> Any:
        """The row's env, as ms-swift builds it, without the guard that refuses tool envs to
        `gym_scheduler` (`factories`): this scheduler plays them."""
        from swift.rollout.gym_env import envs

        name = env_config.get("name", self.gym_env_name) if isinstance(env_config, dict) else None
        factory = envs.get(name) if isinstance(name, str) else None
        if isinstance(factory, EnvFactory):
            return factory.build(env_config)
        return super()._create_env(env_config)  # unknown names get the did-you-mean

    async def on_trajectory_start(self, requests: list[Any]) -> None:
        await asyncio.gather(*(self._start(request) for request in requests))

    async def _start(self, request: Any) -> None:
        uuid = request.uuid
        if uuid in self._live:
            await self._close_and_remove(uuid)
        env_config = (getattr(request, "data_dict", None) or {}).get("env_config", {})
        # the name ms-swift's _create_env uses: an explicit null is the name, not --gym_env
        name = (
            env_config.get("name", self.gym_env_name)
            if isinstance(env_config, dict)
            else self.gym_env_name
        )
        live = self._live[uuid] = LiveEpisode(name if isinstance(name, str) else repr(name))
        live.episode.records = self._trajectories is not None  # read only for the file
        if self._trajectories is not None:
            live.env_config = jsonable(env_config)
        try:
            placement = process_placement()  # None unless SWIFT_GYM_RAY_ADDRESS is set
            if placement is None:
                live.env = self._create_env(env_config)
            else:  # waits while the cluster is full: not the step timeout's business
                live.env = await placement.open(name, env_config)
            reset = await self._guarded(live.env.reset(request))
            tools = tools_of(live.env)
            live.rewrites = replaces_chat(live.env)
            context = live.env.rewritten_context() if live.rewrites else None
            live.episode.open(reset, tools, context)
        except Exception as error:  # this episode ends; the batch goes on
            self._fail(live, "reset", error)
            env, live.env = live.env, None
            await close_quietly(env, self._timeout)
            return
        live.opened, live.reset_info = True, jsonable(live.episode.reset_info)
        messages = plain_copy(live.episode.messages)  # ms-swift's to change, not the episode's
        if context:  # the program's first call was more than a system and a user message
            messages = replacement(messages, []).messages
        request.messages = messages
        if tools:  # what the --agent_template renders in the prompt
            if getattr(request, "tools", None) != list(tools):
                self._warn_once(
                    (live.name, "tools", "row"),
                    "swift-gym: env %s offers tools its dataset rows do not carry (a `tools` "
                    "column with the same schemas): ms-swift encodes the prompt it trains on, "
                    "and in colocate mode the first turn, from the row's `tools`; later turns "
                    "get the env's. Give the rows the env's tools",
                    live.name,
                )
            request.tools = tools.copy()  # ms-swift's to change, not the env's
            live.tools = list(tools)

    async def on_turn_end(
        self, request: Any, response_choice: Any, current_turn: int
    ) -> dict[str, Any]:
        uuid = request.uuid
        live = self._live.get(uuid)
        if live is None or live.env is None:  # its reset failed: report once, then forget it
            live = self._live.pop(uuid, None) or LiveEpisode(self.gym_env_name)
            infos = live.rollout_infos(True)
            self._finished(live, False)
            return {"done": True, "rollout_infos": infos}
        episode, env = live.episode, live.env
        try:
            reply = _reply(request.messages, response_choice, bool(episode.tools))
            # the episode's chat, as on every face (ms-swift's own keeps earlier replies as token
            # ids, without their calls); ms-swift's messages are copies of its messages, so what
            # step does to them never reaches the messages ms-swift trains on
            value = await self._guarded(env.step(episode.send(reply)))
            context = env.rewritten_context() if live.rewrites else None
            turn = episode.take(value, context, tools_of(env) if context is not None else None)
        except Exception as error:  # this episode ends with reward 0; the batch goes on
            self._fail(live, "step", error)
            infos = live.rollout_infos(True)
            self._finished(live, False)
            await self._close_and_remove(uuid)
            return {"done": True, "rollout_infos": infos}
        done = turn.step.done
        info = jsonable(turn.step.info)
        live.step_infos.append(info)
        if live.rewrites and request.messages:  # to find the reply in a replaced chat
            live.replies.append((signature(reply.message()), request.messages[-1]))
        if turn.context is not None:  # the next turn plays the env's chat, not an extension
            live.pending_context, live.offered = turn.context, episode.tools
            live.tools = list(episode.tools or ()) or live.tools
        elif not done:
            live.pending = turn.next_messages
        if live.tools:
            live.tool_calls.append([call_record(call) for call in reply.calls])
            live.tool_results.append([result_record(result) for result in turn.results])
        if turn.record is not None:  # for the trajectory file: encoded now, while fresh
            reply_text = request.messages[-1].get("content") if request.messages else None
            live.encoded.append(encoded_turn({**turn.record, "reply": reply_text, "info": info}))
        ended = done or bool(self.max_turns and current_turn >= self.max_turns)
        fit = None if ended else self._prompt.fit(self, live, request, response_choice)
        cut = fit is not None and not fit.fits
        if fit is not None and cut:
            live.context_full = {
                "turn": current_turn + 1,
                "prompt_tokens": fit.tokens,
                "counted": fit.counted,
                "max_model_len": fit.max_model_len,
            }
            self._warn_once(
                (live.name, "context", "full"),
                "swift-gym: env %s: an episode ended before turn %d, whose prompt (%d tokens) "
                "leaves no room to generate within max_model_len %d; its reward is what it "
                "earned so far. Shorten the env's observations or --max_turns, or give a "
                "longer --vllm_max_model_len (further episodes ended this way are only "
                "recorded, in rollout_infos['context_full'])",
                live.name,
                current_turn + 1,
                fit.tokens,
                fit.max_model_len,
            )
        infos = live.rollout_infos(done)
        if ended or cut:
            self._finished(live, done)
            await self._close_and_remove(uuid)  # GYMScheduler keeps envs cut off by max_turns
        return {"done": done or cut, "rollout_infos": infos}

    def step(self, request: Any, response_choice: Any, current_turn: int) -> dict[str, Any]:
        """The next turn's messages (`LiveEpisode.pending`), or the chat the env replaced."""
        live = self._live.get(request.uuid)
        trimmed = None
        if live is not None:
            if live.pending_context is not None:
                self._replace(request, live)
            pending, live.pending = live.pending, []
            if pending and pending[0].get("role") == "tool":
                trimmed = self._tool_turn(request, response_choice, pending)
            request.messages.extend(plain_copy(pending))  # ms-swift's, not the episode's
        result = {"infer_request": request}
        return {**result, **trimmed} if trimmed else result

    def _tool_turn(
        self, request: Any, response_choice: Any, pending: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
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

    def _replace(self, request: Any, live: LiveEpisode) -> None:
        context, live.pending_context = live.pending_context, None
        swap = replacement(context or [], live.replies)
        request.messages = swap.messages
        if not swap.keeps_newest:  # ms-swift would give the newest reply's ids to another
            live.keep_text = True
        offered, live.offered = live.offered, None
        if offered:
            request.tools = offered.copy()
        if not swap.aligned:
            self._warn_once(
                (live.name, "context", "misaligned"),
                "swift-gym: env %s replaced its chat with assistant messages that are not the "
                "policy's latest replies in order; ms-swift trains each assistant message of "
                "the final chat on the tokens sampled at the turn in the same place from the "
                "end, so some are trained on other turns' tokens. Keep replies word for word, "
                "or drop them (see docs/agents.md)",
                live.name,
            )

    def set_assistant_message_token_ids(self, request: Any, token_ids: list[int]) -> None:
        """ms-swift freezes the newest reply as its ids, in the last assistant message: not
        when the env's replaced chat dropped that reply (another would get them)."""
        live = self._live.get(request.uuid)
        if live is not None and live.keep_text:
            live.keep_text = False
            return
        super().set_assistant_message_token_ids(request, token_ids)
        if live is not None and self._prompt.counts():  # to count the next prompt
            replies = sum(1 for m in request.messages if m.get("role") == "assistant")
            del live.reply_ids[max(replies - 1, 0) :]  # a continued reply replaces its ids
            live.reply_ids.append(token_ids)  # ms-swift's list, only read here

    def _finished(self, live: LiveEpisode, done: bool) -> None:
        """The episode ended: into the trajectory file, if one was asked for."""
        if self._trajectories is not None:
            rewards = live.episode.rewards
            self._trajectories.episode_finished(
                live.trajectory(), rewards, live.total_reward(), done
            )

    async def _close_and_remove(self, uuid: str) -> None:
        live = self._live.pop(uuid, None)
        await close_quietly(live.env if live is not None else None, self._timeout)
        self._prompt.forget(uuid)
        await super()._close_and_remove(uuid)  # GYMScheduler's own dicts, unused here


def scheduler_class(base: type) -> type:
    """The `swift_gym` scheduler on top of ms-swift's `GYMScheduler` (`base`)."""
    return type("SwiftGymScheduler", (SwiftGymScheduler, base), {"__module__": __name__})


def _reply(messages: list[dict[str, Any]], response_choice: Any, offers_tools: bool) -> Reply:
    """The reply ms-swift appended to `messages` (its text), with the calls the engine parsed
    (an env with tools only)."""
    last = messages[-1] if messages and messages[-1].get("role") == "assistant" else None
    content = last.get("content") if last is not None else None
    calls = tuple(tool_calls([response_choice.message])) if offers_tools else ()
    return Reply(content if isinstance(content, str) else "", calls)
