"""Envs that misbehave, registered only by the test launcher (`serve_process.start_misbehaving`).

Each does one wrong thing a real env might: raise, block the loop with `time.sleep`, hang
forever, call `sys.exit`, return the wrong shape. The server must answer each with an error
frame and go on serving everyone else.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from typing import Any

import swift_gym
from swift_gym.tools import function_tool


class Raises(swift_gym.Env):
    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, "say anything"

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        raise RuntimeError("the env broke on " + str(messages[-1]["content"])[:20])


class BlocksLoop(swift_gym.Env):
    """`time.sleep` inside a coroutine: blocks whatever loop runs it, for `seconds`."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        seconds = float(messages[-1]["content"])
        time.sleep(seconds)
        return f"slept {seconds}", 1.0, True, {}


class Hangs(swift_gym.Env):
    """A step that never returns: blocking forever, or awaiting forever."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        if messages[-1]["content"] == "block":
            time.sleep(3600)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class Exits(swift_gym.Env):
    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        sys.exit(3)


class WrongShape(swift_gym.Env):
    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        return ("only", "three", "things")


class Cancels(swift_gym.Env):
    """Raises `asyncio.CancelledError` itself (nobody cancelled it)."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        raise asyncio.CancelledError


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class BadInfo(swift_gym.Env):
    """An info holding a value that JSON cannot write and whose str() and repr() raise."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        return "played", 1.0, False, {"odd": Unprintable(), "fine": 1}


class SlowClose(swift_gym.Env):
    """Ends at its first step; its close() awaits 2.5 s."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "start", {}, ""

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        return "the end", 1.0, True, {}

    async def close(self) -> None:
        await asyncio.sleep(2.5)


class SlowCloseBlocking(SlowClose):
    """Its close() blocks its thread 2.5 s."""

    async def close(self) -> None:
        time.sleep(2.5)


class Echo(swift_gym.Env):
    """Plays back the reply it got, and how many messages the conversation had."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "say something", {"seed": self.config.seed}, "echo"

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        reply = messages[-1]["content"]
        done = reply == "bye"
        return reply, float(len(reply)), done, {"messages": len(messages), "reply": reply}


class WhereAmI(swift_gym.Env):
    """Says which thread built it and played each call: where the server placed it."""

    def __init__(self, env_config: Any = None):
        super().__init__(env_config)
        self.built_on = threading.current_thread().name

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "ask", {"built_on": self.built_on, "reset_on": threading.current_thread().name}, ""

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        return "here", 0.0, False, {"step_on": threading.current_thread().name}


class WhereAmINeverBlocks(WhereAmI):
    """The same, declaring that it never blocks: `--isolation auto` plays it inline."""

    never_blocks = True


class AnswersNoCall(swift_gym.Env):
    """Offers a tool, then answers a reply's calls with no result (or with invalid tools, when
    its seed is 1): the server must say it is the env's error."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "call ping", {}, ""

    def tools(self) -> list[dict[str, Any]]:
        if self.config.seed == 1:
            return [{"type": "function", "function": {"name": "no spaces allowed"}}]
        return [function_tool("ping", "Answers pong.", {})]

    async def step(self, messages: list[dict[str, Any]]) -> swift_gym.StepResult:
        return swift_gym.StepResult("no answer", 0.0, False, {}, [])


class Rewrites(swift_gym.Env):
    """Replaces the chat as an agent program that summarised its history does: offers `ping`,
    and after its first step shows a summary and offers `pong` instead. Its info says how many
    messages its step received, and their roles."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        self.summarised = False
        return "call ping", {}, "a program"

    def tools(self) -> list[dict[str, Any]]:
        name = "pong" if self.summarised else "ping"
        return [function_tool(name, f"Answers {name}.", {})]

    def rewritten_context(self) -> list[dict[str, Any]] | None:
        if not self.summarised:
            return None
        return [{"role": "system", "content": "summary: ping was called"},
                {"role": "user", "content": "now call pong"}]  # fmt: skip

    async def step(self, messages: list[dict[str, Any]]) -> swift_gym.StepResult:
        calls = swift_gym.tool_calls(messages)
        results = [swift_gym.ToolResult.for_call(call, call.name + "ed") for call in calls]
        info = {"roles": [message["role"] for message in messages]}
        done = self.summarised
        self.summarised = True
        return swift_gym.StepResult("", 1.0 if done else 0.0, done, info, results)


class Fetches(Echo):
    """Declares that it reaches the network (as `openenv` does): served only when allowed."""

    reaches_network = True


ENVS = {
    "raises": Raises,
    "blocks_loop": BlocksLoop,
    "hangs": Hangs,
    "exits": Exits,
    "wrong_shape": WrongShape,
    "echo": Echo,
    "fetches": Fetches,
    "answers_no_call": AnswersNoCall,
    "rewrites": Rewrites,
    "where_am_i": WhereAmI,
    "where_am_i_never_blocks": WhereAmINeverBlocks,
    "cancels": Cancels,
    "bad_info": BadInfo,
    "slow_close": SlowClose,
    "slow_close_blocking": SlowCloseBlocking,
}


@swift_gym.hookimpl
def swift_gym_register_envs(register: Any) -> None:
    for name, env in ENVS.items():
        register(name, env)
