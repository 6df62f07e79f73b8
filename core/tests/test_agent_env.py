"""AgentEnv: an agent program, played turn by turn through reset and step.

The programs here are in-process fakes (`FakeToolAgent`, ...), but their client is the real
`openai.AsyncOpenAI` SDK, answered by the episode's in-memory transport.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from pydantic import Field

from swift_gym import AgentEnv, AgentResult, EnvConfig, StepResult, ToolResult, as_step_result
from swift_gym.tools import function_tool

INTEGER = {"type": "integer"}
ADD = function_tool("add", "Add two integers.", {"a": INTEGER, "b": INTEGER})


class SumConfig(EnvConfig):
    a: int = Field(2, ge=0, le=1000)
    b: int = Field(3, ge=0, le=1000)


class FakeToolAgent(AgentEnv):
    """A plain openai tool loop: the model may call `add`, then answers with the sum."""

    config_model = SumConfig

    async def run(self, client: Any) -> AgentResult:
        messages: list[Any] = [
            {"role": "system", "content": "You add numbers."},
            {"role": "user", "content": f"What is {self.config.a} + {self.config.b}?"},
        ]
        calls = 0
        for _ in range(4):
            reply = await client.chat.completions.create(
                model="policy", messages=messages, tools=[ADD]
            )
            message = reply.choices[0].message
            messages.append(message)
            if not message.tool_calls:
                solved = (message.content or "").strip() == str(self.config.a + self.config.b)
                return AgentResult(
                    reward=1.0 if solved else 0.0,
                    metrics={"tool_calls": float(calls)},
                    info={"answer": message.content},
                )
            for call in message.tool_calls:
                calls += 1
                try:
                    args = json.loads(call.function.arguments)
                    content = str(int(args["a"]) + int(args["b"]))
                except (ValueError, TypeError, KeyError) as error:  # the model's garbage
                    content = f"Error: {type(error).__name__}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        return 0.0


def assistant(text: str = "", calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return message


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


async def test_reset_gives_the_first_calls_system_prompt_observation_and_tools() -> None:
    env = FakeToolAgent({"a": 4, "b": 5})
    observation, info, system = await env.reset()
    assert (observation, info, system) == ("What is 4 + 5?", {}, "You add numbers.")
    assert [tool["function"]["name"] for tool in env.tools()] == ["add"]
    assert env.rewritten_context() is None
    await env.close()


async def test_a_tool_call_comes_back_as_its_result_then_the_answer_ends_with_the_reward() -> None:
    env = FakeToolAgent({"a": 4, "b": 5})
    observation, _, system = await env.reset()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": observation},
        assistant("", [call("c1", "add", {"a": 4, "b": 5})]),
    ]
    first = as_step_result(await env.step(messages))
    assert first == StepResult("", 0.0, False, {}, (ToolResult("c1", "add", "9"),))
    assert env.rewritten_context() is None
    messages += [{"role": "tool", "tool_call_id": "c1", "content": "9"}, assistant("9")]
    last = await env.step(messages)
    assert (last.reward, last.done) == (1.0, True)
    assert last.info == {"answer": "9", "metrics": {"tool_calls": 1.0}}
    await env.close()
    await env.close()  # safe twice


async def test_a_program_that_returns_a_bare_number_gives_that_reward() -> None:
    class Once(AgentEnv):
        async def run(self, client: Any) -> float:
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}]
            )
            return 0.25

    env = Once()
    assert await env.reset() == ("hi", {}, "")
    result = await env.step([{"role": "user", "content": "hi"}, assistant("hello")])
    assert (result.reward, result.done, result.tool_results) == (0.25, True, ())
    await env.close()


async def test_a_program_that_never_calls_the_model_fails_reset_clearly() -> None:
    from swift_gym.agent import AgentProgramError

    class Silent(AgentEnv):
        async def run(self, client: Any) -> float:
            return 1.0

    class Broken(AgentEnv):
        async def run(self, client: Any) -> float:
            raise ValueError("no dataset")

    with pytest.raises(AgentProgramError, match=r"returned 1\.0 before its first call"):
        await Silent().reset()
    with pytest.raises(AgentProgramError, match="raised ValueError: no dataset before its first"):
        await Broken().reset()


def test_an_agent_env_passes_the_conformance_kit() -> None:
    """Garbage replies, garbage calls, determinism, isolation, close twice, no blocking: the
    kit's checks hold for a program played through AgentEnv (its refused calls marked)."""
    from swift_gym.testing import check_env

    report = check_env(FakeToolAgent, configs=[{}, {"a": 40, "b": 2}], sample_replies=["5"])
    report.raise_for_violations()


def test_naming_agent_env_imports_neither_openai_nor_httpx() -> None:
    """`openai` and `httpx` load when an episode starts, not when an env package is listed or
    its class is imported."""
    import subprocess
    import sys

    code = (
        "import sys, swift_gym; swift_gym.AgentEnv; swift_gym.AgentResult; "
        "import swift_gym.agent.env; print(sorted({'openai', 'httpx'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


class SummarisingAgent(AgentEnv):
    """Calls for `add` until the model stops; after each call its chat is one summary."""

    seen: ClassVar[list[list[dict[str, Any]]]] = []

    async def run(self, client: Any) -> AgentResult:
        messages: list[Any] = [{"role": "user", "content": "Add."}]
        for turn in range(3):
            reply = await client.chat.completions.create(
                model="policy", messages=messages, tools=[ADD]
            )
            if not reply.choices[0].message.tool_calls:
                break
            messages = [{"role": "user", "content": f"Summary after call {turn + 1}."}]
        return AgentResult(reward=1.0)

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        type(self).seen.append([dict(message) for message in messages])
        return await super().step(messages)


async def test_the_conformance_kit_plays_the_chat_an_agent_program_rewrote() -> None:
    from swift_gym.testing.episodes import Episode, Recorder
    from swift_gym.testing.replies import RepeatedReply

    call = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
        ],
    }
    problems: list[str] = []
    recorder = Recorder(lambda check, message, step, reply: problems.append(message), 10.0)
    SummarisingAgent.seen.clear()
    episode = Episode(SummarisingAgent({}), RepeatedReply(call), call_timeout=10, recorder=recorder)
    await episode.start()
    await episode.advance(3)
    await episode.advance(3)
    await episode.close()
    assert problems == []
    assert SummarisingAgent.seen[0][0] == {"role": "user", "content": "Add."}
    assert SummarisingAgent.seen[1][0] == {"role": "user", "content": "Summary after call 1."}
