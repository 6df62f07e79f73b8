"""AgentEnv when the program misbehaves or asks for what the episode does not serve.

Fake programs in process; their client is the real `openai` SDK, so each refusal is checked
as the SDK raises it in the program.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, ClassVar

import openai
import pytest

from swift_gym import AgentEnv, EnvConfig, as_step_result, tool_calls
from swift_gym.agent import AgentProgramError
from swift_gym.agent.env import running_programs
from swift_gym.placement import background

USER = [{"role": "user", "content": "go"}]


def reply(text: str = "ok") -> list[dict[str, Any]]:
    return [*USER, {"role": "assistant", "content": text}]


class FakeProber(AgentEnv):
    """Asks for what the episode refuses, reports what the SDK raised, then plays one turn."""

    async def run(self, client: Any) -> Any:
        seen: list[str] = []
        attempts = [
            lambda: client.models.list(),
            lambda: client.embeddings.create(model="m", input="x"),
            lambda: client.chat.completions.create(model="m", messages=USER, stream=True),
            lambda: client.chat.completions.create(model="m", messages=USER, n=2),
            lambda: client.chat.completions.create(model="m", messages=[]),
        ]
        for attempt in attempts:
            try:
                await attempt()
            except openai.APIStatusError as error:
                seen.append(f"{error.status_code} {error.body['message']}")
        answer = await client.chat.completions.create(model="m", messages=USER)
        from swift_gym import AgentResult

        return AgentResult(1.0, info={"seen": seen, "answer": answer.choices[0].message.content})


async def test_other_routes_streaming_and_n_get_openai_errors_the_sdk_raises() -> None:
    env = FakeProber()
    assert (await env.reset())[0] == "go"
    result = await env.step(reply("hi"))
    seen = result.info["seen"]
    assert [line[:3] for line in seen] == ["404", "404", "400", "400", "400"]
    assert "serves only POST /chat/completions, not GET /v1/models" in seen[0]
    assert "stream=True is not supported" in seen[2]
    assert "n=2 is not supported" in seen[3]
    assert "messages must be a non-empty list" in seen[4]
    assert (result.reward, result.info["answer"]) == (1.0, "hi")
    await env.close()


class RaiseConfig(EnvConfig):
    kind: str = "value"


class FakeRaiser(AgentEnv):
    """Raises what the row asks for after its first call."""

    config_model = RaiseConfig

    async def run(self, client: Any) -> float:
        await client.chat.completions.create(model="m", messages=USER)
        raise {"value": ValueError("bad parse"), "exit": SystemExit(3), "kb": KeyboardInterrupt()}[
            self.config.kind
        ]


@pytest.mark.parametrize(
    ("kind", "shown"),
    [("value", "ValueError: bad parse"), ("exit", "SystemExit: 3"), ("kb", "KeyboardInterrupt")],
)
async def test_a_program_that_raises_ends_only_its_episode(kind: str, shown: str) -> None:
    env = FakeRaiser({"kind": kind})
    await env.reset()
    with pytest.raises(AgentProgramError, match=f"the agent program raised {shown}"):
        await env.step(reply())
    await env.close()
    # the loop that runs every program is still up: the next episode plays
    other = FakeRaiser()
    await other.reset()
    assert background.loop().is_running()
    await other.close()


class IdConfig(EnvConfig):
    id: str = ""


class FakeCleanup(AgentEnv):
    """Waits forever inside a call; its finally block records that cleanup ran."""

    config_model = IdConfig

    cleaned: ClassVar[list[str]] = []

    async def run(self, client: Any) -> float:
        try:
            await client.chat.completions.create(model="m", messages=USER)
            await client.chat.completions.create(model="m", messages=reply())
            return 1.0
        finally:
            await asyncio.sleep(0)  # cleanup that awaits, too
            self.cleaned.append(self.config.id)


async def test_close_cancels_a_running_program_and_awaits_its_finally_blocks() -> None:
    env = FakeCleanup({"id": "a"})
    await env.reset()
    await env.step(reply())
    assert FakeCleanup.cleaned == []
    await env.close()
    assert FakeCleanup.cleaned == ["a"]
    await env.close()
    assert FakeCleanup.cleaned == ["a"]


class FakeHanger(AgentEnv):
    """Hangs between calls (an await that never returns) and ignores one cancellation."""

    close_timeout = 0.2

    async def run(self, client: Any) -> float:
        await client.chat.completions.create(model="m", messages=USER)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(1)  # stubborn: close gives up after close_timeout (0.2 s)
        return 0.0


async def test_a_hanging_program_is_bounded_by_the_callers_timeout_and_close() -> None:
    env = FakeHanger()
    await env.reset()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(env.step(reply()), 0.2)
    await asyncio.wait_for(env.close(), 5)  # returns after close_timeout, not never
    assert running_programs() == 1  # left running, held (never destroyed while pending)
    for _ in range(100):
        if not running_programs():
            break
        await asyncio.sleep(0.05)
    assert running_programs() == 0


class FakeForgetful(AgentEnv):
    """Ignores the tool calls of the reply and ends."""

    async def run(self, client: Any) -> float:
        await client.chat.completions.create(model="m", messages=USER)
        return 0.5


async def test_calls_the_program_leaves_unanswered_get_error_results() -> None:
    env = FakeForgetful()
    await env.reset()
    calls = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    result = await env.step([*USER, {"role": "assistant", "content": "", "tool_calls": calls}])
    checked = as_step_result(result, tool_calls(result_messages(calls)))
    assert checked.done and checked.reward == 0.5
    (error,) = checked.tool_results
    assert error.is_error and "ended before answering" in error.content
    await env.close()


def result_messages(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": "", "tool_calls": calls}]


async def test_step_after_the_end_and_before_reset_are_refused() -> None:
    env = FakeForgetful()
    with pytest.raises(AgentProgramError, match="before reset"):
        await env.step(reply())
    await env.reset()
    await env.step(reply())
    with pytest.raises(AgentProgramError, match="after the episode ended"):
        await env.step(reply())


async def test_the_program_runs_on_the_background_loop_not_the_callers() -> None:
    threads: list[str] = []

    class Where(AgentEnv):
        async def run(self, client: Any) -> float:
            threads.append(threading.current_thread().name)
            await client.chat.completions.create(model="m", messages=USER)
            return 0.0

    env = Where()
    await env.reset()
    assert threads == ["swift-gym-background"]
    await env.close()


def test_reset_and_step_on_different_event_loops_play_one_episode() -> None:
    """ms-swift's colocate mode: reset on one loop (then closed), the turns on another."""

    class Two(AgentEnv):
        async def run(self, client: Any) -> float:
            await client.chat.completions.create(model="m", messages=USER)
            second = await client.chat.completions.create(model="m", messages=reply("a"))
            return float(second.choices[0].message.content == "b")

    env = Two()
    assert asyncio.run(env.reset())[0] == "go"
    assert not asyncio.run(env.step(reply("a"))).done
    assert asyncio.run(env.step([*reply("a"), {"role": "assistant", "content": "b"}])).reward == 1
    asyncio.run(env.close())
