"""One scripted episode of the docs' calculator agents: the model calls `add(2, 2)`, the tool
answers 4, the model says 4. Shared by the tests that run the program agents.md shows."""

from __future__ import annotations

from typing import Any


async def add_two_and_two(env: Any) -> tuple[Any, ...]:
    """(observation, system prompt, tool names, the call's step, the answer's step)."""
    observation, _, system = await env.reset()
    tools = [tool["function"]["name"] for tool in env.tools()]
    call = {"id": "c1", "type": "function",
            "function": {"name": "add", "arguments": '{"a": 2, "b": 2}'}}  # fmt: skip
    chat = [{"role": "system", "content": system}, {"role": "user", "content": observation}]
    chat.append({"role": "assistant", "content": "", "tool_calls": [call]})
    first = await env.step(chat)
    chat += [{"role": "tool", "tool_call_id": "c1", "content": "4"}]
    last = await env.step([*chat, {"role": "assistant", "content": "4"}])
    await env.close()
    return observation, system, tools, first, last
