"""One env instance playing one episode, as ms-swift's gym loop would, checked at every call.

An `Episode` keeps the conversation (system prompt, observations, replies), sends it to `step`
with the next scripted reply, and writes what came back to a transcript that two runs can
compare. When given a `Recorder`, it also checks each result, the messages and the timing.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..env import Env, Message
from ..episode import Episode as PlayedEpisode
from ..episode import Reply, rewritten_context, tools_of
from ..errors import short_repr
from .replies import GARBAGE_REPLIES, Script, as_message, reply_label
from .results import reset_problems, step_problems, tools_problems
from .timing import timed_call


@dataclass
class Recorder:
    """Where an episode reports violations: `record(check, message, step, reply)`."""

    record: Callable[[str, str, int | None, str | None], None]
    block_budget: float


class Episode:
    """An env, a reply script, the conversation so far and the transcript of results."""

    def __init__(
        self,
        env: Env,
        script: Script,
        *,
        call_timeout: float,
        recorder: Recorder | None = None,
        failure_check: str | None = None,
    ):
        self.env = env
        self.script = script
        self.call_timeout = call_timeout
        self.recorder = recorder
        self.failure_check = failure_check
        """The check an exception of `step` breaks (default: `step`, `garbage` for garbage)."""
        self.episode = PlayedEpisode()
        """The episode's chat, tools and turns, as every face keeps them (`swift_gym.episode`)."""
        self.transcript: list[tuple[Any, ...]] = []
        self.steps = 0
        self.done = False
        self.last_result: Any = None
        """What the last `step` returned (None when it raised or hung)."""

    def _record(self, check: str, message: str, step: int, reply: str | None = None) -> None:
        if self.recorder is not None:
            self.recorder.record(check, message, step, reply)

    async def _call(
        self, method: str, make: Callable[[], Any], step: int, reply: Message | None
    ) -> Any:
        """Call `method` through `make`; None (recorded) when it raised, hung or is not async."""
        label = None if reply is None else reply_label(reply)
        garbage = reply is not None and any(reply == g for g in GARBAGE_REPLIES.values())
        failure_check = "garbage" if garbage else method
        if self.failure_check is not None and method == "step":
            failure_check = self.failure_check
        try:
            awaitable = make()
            if not inspect.isawaitable(awaitable):
                self._record(
                    method,
                    f"{method}() must be a coroutine (async def), it returned "
                    f"{short_repr(awaitable)}",
                    step,
                    label,
                )
                self.transcript.append(("not_awaitable", method))
                return None
            result, blocked = await timed_call(awaitable, self.call_timeout)
        except TimeoutError as error:
            self._record(method, f"{method}() {error}", step, label)
            self.transcript.append(("timeout", method))
            return None
        except Exception as error:  # the env's failure is what the kit reports
            message = f"{method}() raised {type(error).__name__}: {short_repr(str(error), 200)}"
            self._record(failure_check, message, step, label)
            self.transcript.append(("raised", method, type(error).__name__, str(error)))
            return None
        if self.recorder is not None and blocked > self.recorder.block_budget:
            self._record(
                "blocking",
                f"{method}() blocked the event loop for {blocked:.3f} s without awaiting "
                f"(budget {self.recorder.block_budget:g} s): move heavy work to __init__, a "
                "cache or `await asyncio.to_thread(...)`",
                step,
                label,
            )
        return result

    async def start(self) -> None:
        """Reset the env and open the conversation with its system prompt and observation."""
        result = await self._call("reset", lambda: self.env.reset(None), 0, None)
        problems = [] if result is None else reset_problems(result)
        for check, message in problems:
            self._record(check, message, 0)
        if result is None or any(check == "reset" for check, _ in problems):
            self.done = True
            if result is not None:
                self.transcript.append(("bad_reset", repr(result)))
            return
        observation, info, system_prompt = result
        self.transcript.append(("reset", observation, info, system_prompt))
        tool_problems = tools_problems(self.env)
        for check, message in tool_problems:
            self._record(check, message, 0)
        try:  # an agent program's first call may be more than a system and a user message
            context = rewritten_context(self.env)
            self.episode.open(result, None if tool_problems else tools_of(self.env), context)
        except Exception as error:
            self._record("reset", f"{type(error).__name__}: {short_repr(str(error), 200)}", 0)
            self.done = True

    async def advance(self, max_steps: int) -> None:
        """Send the next reply; ends the episode at `done`, at a broken result or at max_steps."""
        self.steps += 1
        step = self.steps
        reply = self.script.next(self._oracle())
        messages = [*self.episode.messages, reply]
        sent = copy.deepcopy(messages)
        typed = Reply.read(reply)
        self.episode.send(typed, history=sent)
        result = await self._call("step", lambda: self.env.step(messages), step, reply)
        self.last_result = result
        if messages != sent:
            self._record("messages", _mutation(sent, messages), step, reply_label(reply))
        if result is None:
            self.done = True
            return
        problems = step_problems(result, typed.calls if self.episode.tools else ())
        for check, message in problems:
            self._record(check, message, step, reply_label(reply))
        try:
            context = None if problems else rewritten_context(self.env)
            tools = tools_of(self.env) if context is not None else None
            turn = self.episode.take(result, context, tools)
        except Exception as error:  # the episode cannot go on: the step's problems are above
            if not problems:  # the chat the env replaced, or its tools after it
                message = f"{type(error).__name__}: {short_repr(str(error), 200)}"
                self._record("step", message, step, reply_label(reply))
            self.transcript.append(("bad_step", repr(result)))
            self.done = True
            return
        self.transcript.append(("step", *turn.step))
        self.done = turn.step.done or step >= max_steps

    def _oracle(self) -> str | Mapping[str, Any] | None:
        """The env's own best reply (`oracle_reply()`: text or a message with tool calls), when
        it defines one that works now."""
        method = getattr(self.env, "oracle_reply", None)
        if method is None:
            return None
        try:
            reply = method()
        except Exception:  # no oracle, or none in this state: an optional helper, not a rule
            return None
        return reply if isinstance(reply, (str, Mapping)) else None

    async def close(self, times: int = 1) -> None:
        """Call `close()` `times` times; failures are recorded as `close` violations."""
        for attempt in range(1, times + 1):
            await close_env(self.env, attempt, self._record_close)

    def _record_close(self, message: str) -> None:
        self._record("close", message, self.steps)


async def close_env(env: Env, attempt: int, record: Callable[[str], None]) -> None:
    """Await `env.close()` once, reporting an exception or a close that is not a coroutine."""
    which = "first" if attempt == 1 else "second" if attempt == 2 else f"call {attempt} of"
    try:
        awaitable = env.close()
        if not inspect.isawaitable(awaitable):
            record(f"close() must be a coroutine (async def), it returned {short_repr(awaitable)}")
            return
        await awaitable
    except Exception as error:  # the env's failure is what the kit reports
        record(f"{which} close() raised {type(error).__name__}: {short_repr(str(error), 200)}")


def env_samples(env: Env, given: Sequence[str | Mapping[str, Any]]) -> list[Message]:
    """The caller's sample replies, then the env's own `sample_replies()` if it has any."""
    samples = [as_message(reply) for reply in given]
    method = getattr(env, "sample_replies", None)
    if method is not None:
        try:
            own = list(method())
        except Exception:  # an optional helper for evaluation, not part of the contract
            own = []
        samples += [as_message(reply) for reply in own if isinstance(reply, (str, Mapping))]
    return samples


def first_difference(left: list[tuple[Any, ...]], right: list[tuple[Any, ...]]) -> str | None:
    """Where two transcripts part, in words; None when they are the same."""
    fields = {
        "reset": ("kind", "observation", "info", "system_prompt"),
        "step": ("kind", "observation", "reward", "done", "info"),
    }
    for index, (a, b) in enumerate(zip(left, right, strict=False)):
        if a == b or repr(a) == repr(b):
            continue
        where = "reset" if index == 0 else f"step {index}"
        names = fields.get(a[0], ()) if a[0] == b[0] else ()
        for name, x, y in zip(names, a, b, strict=False):
            if x != y and repr(x) != repr(y):
                return f"at {where}, {name} {short_repr(x)} != {short_repr(y)}"
        return f"at {where}, {short_repr(a)} != {short_repr(b)}"
    if len(left) != len(right):
        return f"one run lasted {len(left) - 1} steps, the other {len(right) - 1}"
    return None


def _mutation(sent: list[Message], seen: list[Message]) -> str:
    head = "step() mutated the messages it was given (ms-swift keeps using them): "
    if len(sent) != len(seen):
        return head + f"the list went from {len(sent)} to {len(seen)} messages"
    for index, (before, after) in enumerate(zip(sent, seen, strict=True)):
        if before != after:
            return head + f"message {index} went from {short_repr(before)} to {short_repr(after)}"
    return head + "the list changed"  # pragma: no cover - != implies one of the above
