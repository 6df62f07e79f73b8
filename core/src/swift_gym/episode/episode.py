"""One live episode of one env: its chat, tools, turns, rewards and status, in one object.

Every face plays an episode through an `Episode`: the ms-swift scheduler, `evaluate`, `play`,
`serve` and the conformance kit. The face calls the env (on its own terms: a worker thread, a
Ray actor, a timeout, a blocking check) and hands the episode what came back; the episode
checks it (`checks`), lays out the next messages (`layout`), records the turn (`records`) and
keeps the totals. So the rules live here once, and a face keeps only what is its own.

    episode = Episode()
    episode.open(await env.reset(), offered_tools(env), rewritten_context(env))
    while not episode.done and len(episode.turns) < limit:
        history = episode.send(Reply.of(await policy.reply(env, episode.messages, rng)))
        episode.take(await env.step(history), rewritten_context(env))
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

from ..env import Env
from ..errors import InvalidStepError, short_repr
from ..steps import StepResult
from ..tools.toolset import ToolResult, ToolSet, offered_tools
from ..tools.turns import call_record, in_call_order, result_record
from .checks import checked_reset, checked_step
from .layout import Message, answer_messages
from .records import turn_record
from .reply import Reply
from .status import final_status, succeeded


class TotalOverflow(InvalidStepError, ArithmeticError):
    """The step rewards add up to more than the largest float: no total can be recorded."""

    def __init__(self, turn: int, reward: float):
        super().__init__(
            f"step() at turn {turn}: the total reward overflowed (reward {reward:g} brings it "
            f"beyond {sys.float_info.max:.4g}); the record keeps the total before that turn"
        )


@dataclass(slots=True)
class Turn:
    """What one step came to: the checked result, its tool results in call order, the
    messages it adds to the chat (none when the env replaced the chat: `context`), and the
    turn's record."""

    step: StepResult
    results: list[ToolResult]
    next_messages: list[Message]
    record: dict[str, Any] | None
    """None when the episode keeps no records (`Episode.records` False)."""
    context: list[Message] | None = None
    tool_turn: bool = False
    """The env offers tools or the reply made calls: the turn has calls and results."""


@dataclass
class Episode:
    """The state of one episode (see the module docstring)."""

    messages: list[Message] = field(default_factory=list)
    """The chat as the model sees it next."""
    tools: ToolSet | None = None
    """The tools the env offers now (None or empty: a text env)."""
    system_prompt: str | None = None
    """As the env gave it (None: no system prompt)."""
    observation: str = ""
    reset_info: dict[str, Any] = field(default_factory=dict)
    turns: list[dict[str, Any]] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    total_reward: float = 0.0
    done: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    """The last step's info."""
    reply: Reply | None = None
    """The reply sent last, until its step is taken."""
    records: bool = True
    """Keep each turn's record in `turns` (a face that reads none, `serve`, turns it off)."""

    def open(self, reset: Any, tools: ToolSet | None, context: Any = None) -> None:
        """Start from what `reset` returned, the tools offered after it, and the chat the env
        replaced (`Env.rewritten_context`), if any. Raises InvalidStepError for a bad reset."""
        observation, info, system_prompt = checked_reset(reset)
        self.system_prompt, self.observation, self.reset_info = reset[2], observation, info
        self.messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
        self.messages.append({"role": "user", "content": observation})
        if context is not None:
            self.messages = checked_context(context)
        self.tools = tools or None

    def send(self, reply: Reply, history: list[Message] | None = None) -> list[Message]:
        """Add `reply` to the chat; the chat to step on: a new list of the same messages (an
        env that appends or removes changes only its own; the conformance kit reports one that
        changes a message), or `history`, the chat a face keeps itself."""
        self.reply = reply
        if history is not None:
            self.messages = history
            return history
        calls = reply.calls
        self.messages.append(
            reply.message() if calls else {"role": "assistant", "content": reply.text}
        )
        return list(self.messages)

    def take(self, value: Any, context: Any = None, tools: ToolSet | None = None) -> Turn:
        """Take what `step` returned for the reply sent last; `context`: the chat the env
        replaced after it (ignored once done), with the `tools` it offers then (read from the
        env when not given). Raises InvalidStepError (the env's bug) or TotalOverflow."""
        reply = self.reply or Reply()
        self.reply = None
        calls = reply.calls
        step = checked_step(value, calls if self.tools else ())
        tool_turn = bool(self.tools) or bool(calls)
        results = in_call_order(step.tool_results, calls) if tool_turn else []
        record = None
        if self.records:
            record = turn_record(
                len(self.rewards) + 1,
                reply.text,
                step.observation,
                step.reward,
                step.done,
                step.info,
                [call_record(call) for call in calls] if tool_turn else None,
                [result_record(result) for result in results] if tool_turn else None,
            )
            self.turns.append(record)
        self.rewards.append(step.reward)
        total = self.total_reward + step.reward
        if math.isinf(total):  # the turn is kept; the total stays the one before it
            raise TotalOverflow(len(self.rewards), step.reward)
        self.total_reward, self.done, self.info = total, step.done, step.info
        next_messages = answer_messages(step, calls, tool_turn)
        replaced = None if step.done or context is None else checked_context(context)
        if replaced is not None:
            self.messages = replaced
            self.tools = tools or None
            next_messages = []
        else:
            self.messages.extend(next_messages)
        return Turn(step, results, next_messages, record, replaced, tool_turn)

    def status(self) -> str:
        """How it ended: the env's status (else "done") when the env ended it, else
        "max_turns" (see `status.final_status`)."""
        return final_status(self.info, self.done)

    def succeeded(self) -> bool:
        return succeeded(self.info, self.done, self.total_reward)


def checked_context(context: Any) -> list[Message]:
    """The chat an env replaced, copied; raises InvalidStepError when it is not a list of
    messages."""
    if not isinstance(context, list) or not all(isinstance(m, dict) for m in context):
        raise InvalidStepError(
            f"rewritten_context() must return a list of messages or None, got {short_repr(context)}"
        )
    return [dict(message) for message in context]


def replaces_chat(env: Any) -> bool:
    """Whether `env` may replace the chat (it overrides `Env.rewritten_context`)."""
    method = getattr(type(env), "rewritten_context", None)
    return method is not None and method is not Env.rewritten_context


def rewritten_context(env: Any) -> Any:
    """The chat `env` replaced after its reset or last step, unchecked; None when it keeps it."""
    return env.rewritten_context() if replaces_chat(env) else None


def tools_of(env: Any) -> ToolSet | None:
    """The tools `env` offers now, checked (`offered_tools`); None for an env without `tools`."""
    return offered_tools(env) if callable(getattr(env, "tools", None)) else None


async def play_turn(episode: Episode, env: Any, reply: Reply) -> Turn:
    """Send `reply`, step `env` on the chat here and take its answer: a face that runs the
    env in its own loop with no limits of its own (`evaluate`, `play`)."""
    value = await env.step(episode.send(reply))
    context = None if _ended(value) else rewritten_context(env)
    return episode.take(value, context, tools_of(env) if context is not None else None)


def _ended(value: Any) -> bool:
    """Whether a step result says done (then the env's replaced chat is not asked for)."""
    if isinstance(value, StepResult):
        return value.done is True
    return isinstance(value, (tuple, list)) and len(value) == 4 and value[2] is True
