"""How AgentEnv reads each call of its program: an extension of the chat, or a rewrite.

Fake programs in process (named as such); the client is the real `openai` SDK.
"""

from __future__ import annotations

from typing import Any

from swift_gym import AgentEnv, ToolResult
from swift_gym.agent.context import first_turn, next_turn
from swift_gym.tools import ToolCall, function_tool

NOTE = function_tool("note", "Write a note.", {"text": {"type": "string"}})


class FakeSummariser(AgentEnv):
    """After each reply, replaces its history by a summary and a new system prompt."""

    async def run(self, client: Any) -> float:
        messages: list[Any] = [
            {"role": "system", "content": "Plan."},
            {"role": "user", "content": "Step 1?"},
        ]
        for turn in range(2, 5):
            reply = await client.chat.completions.create(model="m", messages=messages)
            summary = f"So far: {reply.choices[0].message.content}"
            messages = [
                {"role": "system", "content": f"Plan, part {turn}."},
                {"role": "user", "content": summary},
            ]
        return 1.0


async def test_a_program_that_rewrites_its_history_gives_its_whole_chat() -> None:
    env = FakeSummariser()
    assert await env.reset() == ("Step 1?", {}, "Plan.")
    chat = [{"role": "system", "content": "Plan."}, {"role": "user", "content": "Step 1?"}]
    result = await env.step([*chat, {"role": "assistant", "content": "A"}])
    assert (result.observation, result.done, result.info) == (
        "So far: A",
        False,
        {"context_rewritten": True},
    )
    assert env.rewritten_context() == [
        {"role": "system", "content": "Plan, part 2."},
        {"role": "user", "content": "So far: A"},
    ]
    chat = [*env.rewritten_context(), {"role": "assistant", "content": "B"}]
    assert (await env.step(chat)).observation == "So far: B"
    assert (await env.step([*env.rewritten_context(), {"role": "assistant"}])).done
    assert env.rewritten_context() is None
    await env.close()


def test_a_first_call_of_several_messages_is_shown_exactly() -> None:
    few_shot = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "1+1?"},
        {"role": "assistant", "content": "2"},
        {"role": "user", "content": "2+2?"},
    ]
    observation, system, context = first_turn(few_shot)
    assert system == "S" and context == few_shot
    assert observation == "[user]\n1+1?\n\n[assistant]\n2\n\n[user]\n2+2?"
    assert first_turn([{"role": "user", "content": "hi"}]) == ("hi", None, None)


CALL = ToolCall("c1", "note", '{"text": "x"}')
REPLY = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "note", "arguments": '{"text": "x"}'}}
    ],
}
START = [{"role": "user", "content": "go"}]


def test_an_extension_gives_tool_results_and_the_user_text() -> None:
    sdk_echo = {**REPLY, "content": None, "refusal": None}  # as the SDK sends its message back
    turn = next_turn(
        START,
        REPLY,
        [CALL],
        [
            *START,
            sdk_echo,
            {"role": "tool", "tool_call_id": "c1", "content": "noted"},
            {"role": "user", "content": "next"},
        ],
    )
    assert turn.context is None and turn.observation == "next"
    assert turn.tool_results == (ToolResult("c1", "note", "noted"),)


def test_a_call_left_unanswered_or_an_unknown_result_is_a_rewrite() -> None:
    unanswered = next_turn(START, REPLY, [CALL], [*START, REPLY, {"role": "user", "content": "?"}])
    assert unanswered.context is not None
    (error,) = unanswered.tool_results
    assert error.is_error and "did not answer" in error.content
    stray = [*START, REPLY, {"role": "tool", "tool_call_id": "zz", "content": "?"}]
    assert next_turn(START, REPLY, [CALL], stray).context is not None
    edited = [{"role": "user", "content": "go!"}, REPLY]
    assert next_turn(START, REPLY, [CALL], edited).context is not None


class FakeToolSwitcher(AgentEnv):
    """Offers `note` on its first call, nothing on its second (the history extended)."""

    async def run(self, client: Any) -> float:
        messages: list[Any] = [{"role": "user", "content": "go"}]
        reply = await client.chat.completions.create(model="m", messages=messages, tools=[NOTE])
        messages += [reply.choices[0].message, {"role": "user", "content": "now answer"}]
        await client.chat.completions.create(model="m", messages=messages)
        return 1.0


async def test_tools_that_change_between_calls_are_offered_and_replace_the_chat() -> None:
    env = FakeToolSwitcher()
    await env.reset()
    assert [tool["function"]["name"] for tool in env.tools()] == ["note"]
    result = await env.step([*START, {"role": "assistant", "content": "hm"}])
    assert result.observation == "now answer" and result.info == {"context_rewritten": True}
    assert list(env.tools()) == []
    assert env.rewritten_context() == [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "hm"},
        {"role": "user", "content": "now answer"},
    ]
    await env.close()
