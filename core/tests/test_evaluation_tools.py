"""`swift_gym.evaluate` on an env that offers tools (`tool_envs.CodeLock`, registered here through
a distribution on sys.path): the chat each policy sees, the replies it may give, and the errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tool_envs import CodeLock, secret_of

import swift_gym
from swift_gym import StepResult, ToolResult


@pytest.fixture
def lock(fake_dist: Any, monkeypatch: pytest.MonkeyPatch, clean_plugin_env: None) -> str:
    """The env name `code_lock`, and `broken_lock` whose step ignores the calls."""
    from swift_gym import registry

    fake_dist(
        "lock-envs",
        envs={
            "code_lock": "tool_envs:CodeLock",
            "broken_lock": "lock_bugs:ForgetsCalls",
            "twin_lock": "lock_bugs:TwinTools",
        },
        modules={"lock_bugs": BUGS},
    )
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "lock-envs")
    monkeypatch.setattr(registry, "_default", registry.Registry())
    return "code_lock"


BUGS = """
    from tool_envs import TOOLS, CodeLock

    class ForgetsCalls(CodeLock):
        async def step(self, messages):
            return "no answer", 0.0, False, {}

    class TwinTools(CodeLock):
        def tools(self):
            return [dict(TOOLS[0]), dict(TOOLS[0])]
"""


def call(colour: Any, call_id: str = "c1", name: str = "enter_code") -> dict[str, Any]:
    arguments = colour if isinstance(colour, str) and colour.startswith("{") else None
    arguments = arguments or json.dumps({"colour": colour})
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_a_callable_policy_replies_with_calls_and_sees_the_tool_messages(lock: str) -> None:
    seen: list[list[dict[str, Any]]] = []

    def try_in_order(messages: list[dict[str, Any]], env: swift_gym.Env) -> dict[str, Any]:
        seen.append(messages)
        tried = sum(1 for m in messages if m["role"] == "tool")
        return {"role": "assistant", "content": "trying", "tool_calls": [call(
            ("red", "green", "blue", "yellow")[tried], f"c{tried}"
        )]}  # fmt: skip

    result = swift_gym.evaluate(lock, try_in_order, episodes=8)
    assert result.success_rate == 1.0
    for record in result.records:
        order = ("red", "green", "blue", "yellow").index(secret_of(record["seed"]))
        assert record["num_turns"] == order + 1
    longest = max(seen, key=len)
    assert [m["role"] for m in longest[:5]] == ["system", "user", "assistant", "tool", "assistant"]
    assert longest[2]["tool_calls"] == [call("red", "c0")]
    assert longest[3] == {
        "role": "tool", "tool_call_id": "c0", "name": "enter_code", "content": "wrong colour",
    }  # fmt: skip


def test_results_come_back_in_call_order_and_text_replies_get_the_observation(lock: str) -> None:
    seen: list[list[dict[str, Any]]] = []

    def policy(messages: list[dict[str, Any]], env: swift_gym.Env) -> Any:
        seen.append(messages)
        if len(seen) == 1:
            return "no tool"
        return {"role": "assistant", "content": None, "tool_calls": [
            call("{oops", "b"), call("red", "a"), call("blue", "c", "unlock"),
        ]}  # fmt: skip

    result = swift_gym.evaluate(lock, policy, episodes=1, max_turns=2, seed_start=5)
    first, second = result.records[0]["turns"]
    assert first["tool_calls"] == [] and first["tool_results"] == []
    assert first["observation"] == "Use the enter_code tool."
    assert seen[1][-1] == {"role": "user", "content": "Use the enter_code tool."}
    assert [c["id"] for c in second["tool_calls"]] == ["b", "a", "c"]
    assert [r["tool_call_id"] for r in second["tool_results"]] == ["b", "a", "c"]
    assert second["tool_results"][0]["content"].startswith("Error: the arguments of 'enter_code'")
    assert second["tool_results"][2]["content"].startswith("Error: unknown tool 'unlock'")
    assert second["reply"] == ""


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (42, "returned int, not str or an assistant message dict"),
        ({"role": "user", "content": "hi"}, "its role is 'user', not 'assistant'"),
        ({"role": "assistant", "content": 3}, "its content is int, not str"),
        ({"role": "assistant", "tool_calls": "move"}, "its tool_calls is str, not a list"),
    ],
)
def test_a_reply_of_the_wrong_shape_fails_its_episode_clearly(
    lock: str, reply: Any, message: str
) -> None:
    result = swift_gym.evaluate(lock, lambda messages, env: reply, episodes=1)
    (record,) = result.records
    assert record["status"] == "error"
    assert message in record["error"]


def test_a_step_that_leaves_a_call_unanswered_fails_its_episode(lock: str) -> None:
    result = swift_gym.evaluate("broken_lock", "oracle", episodes=2)
    assert result.statuses == {"error": 2}
    assert result.records[0]["error"] == (
        "step() gave no result for call 'call_oracle' (tool 'enter_code'): answer every call, "
        "an error included"
    )


def test_invalid_tools_fail_the_episode_before_any_reply(lock: str) -> None:
    result = swift_gym.evaluate("twin_lock", "oracle", episodes=1)
    (record,) = result.records
    assert record["status"] == "error" and record["turns"] == []
    assert record["error"].startswith("tools() raised InvalidToolsError: ")
    assert "duplicate tool name 'enter_code'" in record["error"]


def test_a_text_env_still_gets_a_message_reply_and_keeps_the_calls() -> None:
    def policy(messages: list[dict[str, Any]], env: swift_gym.Env) -> Any:
        return {"role": "assistant", "content": "<action>down</action>", "tool_calls": [call(1)]}

    result = swift_gym.evaluate("frozen_lake", policy, episodes=1, max_turns=1)
    (turn,) = result.records[0]["turns"]
    assert turn["reply"] == "<action>down</action>"
    assert turn["action"] == "down"
    assert turn["tool_calls"] == [{"id": "c1", "name": "enter_code", "arguments": '{"colour": 1}'}]
    assert turn["tool_results"] == []
    assert "tools" not in result.records[0]


def test_the_lock_env_answers_calls_as_documented() -> None:
    """The test env itself: a right call opens it, a garbage call gets an error result."""
    import asyncio

    async def play() -> StepResult:
        env = CodeLock({"seed": 3})
        await env.reset()
        messages = [{"role": "assistant", "content": "", "tool_calls": [
            call(secret_of(3), "a"), call("[1]", "b"),
        ]}]  # fmt: skip
        return await env.step(messages)

    result = asyncio.run(play())
    assert result.done and result.reward == 1.0
    opened, refused = result.tool_results
    assert opened == ToolResult("a", "enter_code", "open")
    assert refused.is_error
