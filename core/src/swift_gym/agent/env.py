"""`AgentEnv`: an env written as an agent program that calls a model through the OpenAI SDK.

Control is inverted: `reset` starts `run(client)` and waits for its first
`chat.completions.create`; each `step` answers the pending call with the policy's reply and
waits for the program's next call (the next turn) or its end (done, with the reward it
returned). The program's own work between two calls (running tools, parsing, scoring) happens
inside `step`.

Every program runs on one background event loop per process (`placement.background`): ms-swift
drives a scheduler's hooks on more than one loop in colocate mode (reset on one, the turns on
another, each closed afterwards), and a task cannot move between loops. Each reset, step and
close is one hop there and back. A program that raises, even SystemExit or
KeyboardInterrupt, ends only its episode (`AgentProgramError`); `close` cancels one still
running and waits, at most `close_timeout` seconds, for its cleanup. A program that blocks the
loop without awaiting (a synchronous sleep, a CPU-bound loop) holds up every other episode of
the process: run such work in a thread (`asyncio.to_thread`). A call such a thread makes on
its own event loop is answered on the background loop (`bridge`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
import weakref
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from ..env import Env, Message
from ..placement import background
from ..replies import reply_text, tool_calls
from ..steps import StepResult
from ..tools.toolset import ToolCall, ToolResult, ToolSet
from ..tools.turns import assistant_message, call_messages
from .context import first_turn, next_turn
from .result import AgentProgramError, AgentResult, read_result

TYPE_CHECKING = False
if TYPE_CHECKING:
    import openai

logger = logging.getLogger("swift_gym")
_ids = itertools.count(1)
_running: set[asyncio.Task[Any]] = set()
"""Every program task of the process not yet finished (on the background loop): held here so
a program that ignores cancellation is never destroyed while pending, and counted."""
ENDED = "the agent program ended before answering this call"
STOPPED = "this episode has ended: no more calls to the model"


class AgentEnv(Env):
    """An env whose episode is an agent program: override `run`.

    `self.config` is the row's validated config (`config_model`), as in every env.
    """

    tool_use: ClassVar[str] = "varies"  # the program's tools (for listing: say it in your class)
    close_timeout: ClassVar[float] = 5.0
    """Seconds `close` waits for a cancelled program's cleanup (its finally blocks)."""

    def __init__(self, env_config: Any = None):
        super().__init__(env_config)
        self._episode: _Episode | None = None
        self._tools: ToolSet = ToolSet([])
        self._raw_tools: Any = None
        self._context: list[Message] | None = None
        self._finalizer: weakref.finalize[..., Any] | None = None

    @abstractmethod
    async def run(self, client: openai.AsyncOpenAI) -> float | AgentResult:
        """The agent program: call `client.chat.completions.create` (each call is one turn the
        policy plays), return the episode's reward or an `AgentResult`."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        await self.close()
        episode = _Episode(self)
        self._episode = episode
        self._finalizer = weakref.finalize(self, _cancel_later, episode)
        body = await background.run(episode.start())
        if body is None:
            raise AgentProgramError(
                f"the agent program {episode.ending()} before its first call to the model"
            )
        observation, system, context = first_turn(body["messages"])
        self._set_tools(body.get("tools"))
        episode.previous = body["messages"]
        self._context = context
        return observation, {}, system or ""

    async def step(self, messages: list[Message]) -> StepResult:
        episode = self._episode
        if episode is None or episode.finished:
            raise AgentProgramError("step() before reset(), or after the episode ended")
        text, calls = reply_text(messages), tool_calls(messages)
        body = await background.run(episode.answer_call(text, calls))
        if body is None:  # the program ended: its reward
            episode.finished = True
            self._context = None
            reward, info = read_result(episode.result())
            results = [ToolResult.error(call, ENDED) for call in calls]
            return StepResult("", reward, True, info, results)
        new_messages = body["messages"]
        reply = assistant_message(text, calls)
        turn = next_turn(episode.previous, reply, calls, new_messages, self._tools)
        episode.previous = new_messages
        context = turn.context
        if body.get("tools") != self._raw_tools:
            self._set_tools(body.get("tools"))
            context = context or [dict(m) for m in new_messages]
        self._context = context
        info = {"context_rewritten": True} if context is not None else {}
        return StepResult(turn.observation, 0.0, False, info, turn.tool_results)

    def tools(self) -> Sequence[dict[str, Any]]:
        """The tools of the program's latest call (OpenAI function tools), checked."""
        return self._tools

    def rewritten_context(self) -> list[Message] | None:
        """The program's whole chat for its pending call, when it is not the chat so far
        extended (see `swift_gym.agent.context`); None when it is."""
        return self._context

    async def close(self) -> None:
        episode, self._episode = self._episode, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if episode is not None and not episode.stopped:
            episode.stopped = True
            await background.run(episode.stop(self.close_timeout))

    def _set_tools(self, tools: Any) -> None:
        self._raw_tools = tools
        self._tools = _tool_set(tools or [], f"{type(self).__name__}'s call")


class _Episode:
    """One run of the program, on the background loop: its task, its pending call."""

    def __init__(self, env: AgentEnv):
        self.env: AgentEnv | None = env  # dropped once started: the task holds what it needs
        self.label = type(env).__name__
        self.task: asyncio.Task[Any] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.call: tuple[dict[str, Any], asyncio.Future[dict[str, Any]]] | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.previous: list[Any] = []
        self.finished = False
        self.stopped = False
        self.number = next(_ids)
        self.turn = 0

    async def start(self) -> dict[str, Any] | None:
        loop = self.loop = asyncio.get_running_loop()
        env, self.env = self.env, None
        assert env is not None
        self.waiter = loop.create_future()
        self.task = loop.create_task(_program(env.run, self.answer))
        _running.add(self.task)
        self.task.add_done_callback(self._ended)
        return await self._next()

    async def answer_call(self, text: str, calls: list[ToolCall]) -> dict[str, Any] | None:
        if self.call is None:  # the program ended meanwhile (cancelled, say)
            return await self._next()
        body, reply = self.call
        self.call = None
        self.turn += 1
        self.waiter = asyncio.get_running_loop().create_future()
        if not reply.done():
            reply.set_result(_completion(self.number, self.turn, body, text, calls))
        return await self._next()

    async def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The transport's side: park the program's call until `step` answers it. A call
        made on another event loop (a thread's own) is parked on the episode's (`bridge`)."""
        loop = self.loop
        if loop is None or asyncio.get_running_loop() is loop:
            return await self._park(body)
        from .bridge import on_loop

        return await on_loop(loop, lambda: self._park(body), lambda: self.task)

    async def _park(self, body: dict[str, Any]) -> dict[str, Any]:
        from .transport import ClientError

        if self.stopped:
            raise ClientError(400, STOPPED)
        if self.call is not None:
            raise ClientError(
                400, "one call at a time: this episode is still answering the previous call"
            )
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.call = (body, reply)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)
        return await reply

    async def _next(self) -> dict[str, Any] | None:
        """The program's next call's body, or None when it ended."""
        assert self.waiter is not None and self.task is not None
        if self.call is None and not self.task.done():
            await self.waiter
        if self.call is not None:
            return self.call[0]
        return None

    def _ended(self, task: asyncio.Task[Any]) -> None:
        _running.discard(task)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def ending(self) -> str:
        task = self.task
        if task is None or not task.done():
            return "is still running"
        if task.cancelled():
            return "was cancelled"
        error = task.exception()
        if error is not None:
            return f"raised {_described(error)}"
        return f"returned {task.result()!r:.80}"

    def result(self) -> Any:
        """What the program returned; AgentProgramError when it raised or was cancelled."""
        task = self.task
        assert task is not None and task.done()
        if task.cancelled():
            raise AgentProgramError("the agent program was cancelled")
        error = task.exception()
        if error is not None:
            raise AgentProgramError(f"the agent program raised {_described(error)}") from error
        return task.result()

    def cancel(self) -> None:
        """Cancel the program and refuse a call still parked. A call the program's own task
        made is cancelled with it; one a thread made on its own loop (`bridge`) is not part
        of that task, and would otherwise wait forever."""
        self.stopped = True
        if self.task is not None and not self.task.done():
            self.task.cancel()
        if self.call is not None and not self.call[1].done():
            from .transport import ClientError

            self.call[1].set_exception(ClientError(400, STOPPED))

    async def stop(self, timeout: float) -> None:
        """Cancel the program if it still runs; wait at most `timeout` s for its cleanup."""
        task = self.task
        if task is None:
            return
        running = not task.done()
        self.cancel()
        if running:
            await asyncio.wait([task], timeout=timeout)
            if not task.done():
                logger.warning(
                    "swift-gym: an agent program (%s) still runs %ss after it was cancelled; "
                    "left running (it ignores cancellation)",
                    self.label,
                    timeout,
                )
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: no "exception was never retrieved" at exit


async def _program(run: Any, answer: Any) -> Any:
    """`run(client)` with a client bound to this episode; any BaseException (SystemExit
    included) becomes an AgentProgramError, so it ends the episode, not the loop."""
    from .client import episode_client

    client = episode_client(answer)
    try:
        return await run(client)
    except asyncio.CancelledError:
        raise
    except Exception:
        raise
    except BaseException as error:  # SystemExit, KeyboardInterrupt: would stop the loop
        raise AgentProgramError(f"the agent program raised {_described(error)}") from None
    finally:
        await client.close()


_TOOL_SETS: dict[str, ToolSet] = {}
_MAX_TOOL_SETS = 256


def _tool_set(tools: Any, label: str) -> ToolSet:
    """The checked ToolSet of `tools`, shared by every episode that offers the same ones
    (episodes of one program mostly do): checked and compiled once, held once."""
    try:
        key = json.dumps(tools, sort_keys=True)
    except (TypeError, ValueError):
        return ToolSet(tools, label)
    found = _TOOL_SETS.get(key)
    if found is None:
        found = ToolSet(tools, label)  # raises InvalidToolsError: nothing cached
        if len(_TOOL_SETS) >= _MAX_TOOL_SETS:
            _TOOL_SETS.pop(next(iter(_TOOL_SETS)))
        _TOOL_SETS[key] = found
    return found


def running_programs() -> int:
    """How many agent programs of this process have started and not yet finished."""
    return len(_running)


def _described(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text:.300}" if text else type(error).__name__


def _completion(
    episode: int, turn: int, body: dict[str, Any], text: str, calls: list[ToolCall]
) -> dict[str, Any]:
    """The policy's reply as an OpenAI ChatCompletion (JSON)."""
    message: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        message["tool_calls"] = call_messages(calls)
    model = body.get("model")
    return {
        "id": f"chatcmpl-swiftgym-{episode}-{turn}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model if isinstance(model, str) else "policy",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
                "logprobs": None,
            }
        ],
    }


def _cancel_later(episode: _Episode) -> None:
    """A forgotten env's program, cancelled on the background loop (from any thread)."""
    if episode.task is None:
        return
    with contextlib.suppress(RuntimeError):  # interpreter shutting down
        background.loop().call_soon_threadsafe(episode.cancel)
