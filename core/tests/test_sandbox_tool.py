"""The `python` tool: its schema and answers, and one sandboxed session per episode, closed when
the episode ends, also when it is cut off at max_turns (the episode player closes the env)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import swift_gym
from swift_gym import ToolCall, ToolSet
from swift_gym.sandbox import PythonTool, SandboxLimits
from swift_gym.sandbox.process import live

pytestmark = pytest.mark.usefixtures("bwrap")

CALCULATOR = """
    import swift_gym
    from swift_gym import Env, StepResult, ToolResult
    from swift_gym.sandbox import PythonTool, SandboxLimits

    class Calculator(Env):
        '''Asks for 123456789 * 987654321; offers `python`; the answer is the reply's text.'''

        async def reset(self, request=None):
            self.python = PythonTool(SandboxLimits(wall_seconds=20))
            return "What is 123456789 * 987654321? Answer with the number.", {}, "Use python."

        def tools(self):
            return self.python.tools

        async def step(self, messages):
            calls = swift_gym.tool_calls(messages)
            if calls:
                return StepResult(tool_results=[await self.python.call(c) for c in calls])
            right = swift_gym.reply_text(messages).strip() == str(123456789 * 987654321)
            return StepResult("", float(right), True, {"status": "answered"})

        async def close(self):
            await self.python.close()
"""


@pytest.fixture
def calculator(fake_dist: Any, monkeypatch: pytest.MonkeyPatch, clean_plugin_env: None) -> str:
    from swift_gym import registry

    fake_dist("calc-envs", envs={"calculator": "calc_env:Calculator"},
              modules={"calc_env": CALCULATOR})  # fmt: skip
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "calc-envs")
    monkeypatch.setattr(registry, "_default", registry.Registry())
    return "calculator"


def python_call(code: str, call_id: str = "c1") -> dict[str, Any]:
    arguments = json.dumps({"code": code})
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "python", "arguments": arguments},
    }


NS = "import os\nprint(os.readlink('/proc/self/ns/pid'))\n"


def test_the_schema_is_a_valid_tool_with_one_code_parameter() -> None:
    tool = PythonTool()
    schema = tool.schema()
    assert schema["function"]["name"] == "python"
    assert schema["function"]["parameters"]["required"] == ["code"]
    assert ToolSet([schema]).names == ("python",)
    assert PythonTool(name="run_python").schema()["function"]["name"] == "run_python"


async def test_a_call_answers_with_labelled_output_value_and_traceback() -> None:
    tool = PythonTool(SandboxLimits(output_bytes=2048))
    try:
        result = await tool.call(
            ToolCall("c1", "python", json.dumps({"code": "x = 6\nprint('hi')\nx * 7"}))
        )
        assert (result.tool_call_id, result.name, result.is_error) == ("c1", "python", False)
        assert result.content == "stdout:\nhi\nvalue: 42"
        result = await tool.call(ToolCall("c2", "python", json.dumps({"code": "x / 0"})))
        assert result.content.startswith("error:\nTraceback (most recent call last):")
        assert result.content.endswith("ZeroDivisionError: division by zero")
        result = await tool.call(ToolCall("c3", "python", json.dumps({"code": "pass"})))
        assert result.content == "(no output)"
        result = await tool.call(
            ToolCall("c4", "python", json.dumps({"code": "print('y' * 5000)"}))
        )
        assert "(output cut: at most 2,048 characters of each are kept)" in result.content
        refused = await tool.call(ToolCall("c5", "python", '{"source": "1"}'))
        assert refused.is_error and "missing required property 'code'" in refused.content
    finally:
        await tool.close()


def test_an_episode_uses_one_session_and_closes_it(calculator: str, processes_in) -> None:
    namespaces: set[str] = set()

    def policy(messages: list[dict[str, Any]], env: swift_gym.Env) -> Any:
        tool_messages = [m for m in messages if m["role"] == "tool"]
        for message in tool_messages:
            namespaces.add(message["content"].split("\n")[1])
        if len(tool_messages) == 0:
            return {
                "role": "assistant",
                "content": "",
                "tool_calls": [python_call(NS + "a = 123456789")],
            }
        if len(tool_messages) == 1:
            return {
                "role": "assistant",
                "content": "",
                "tool_calls": [python_call(NS + "print(a * 987654321)")],
            }
        return tool_messages[-1]["content"].split("\n")[2]  # the printed product

    result = swift_gym.evaluate(calculator, policy, episodes=3, concurrency=3)
    assert result.success_rate == 1.0, result.records
    assert len(namespaces) == 3  # a session per episode, two calls each in the same one
    for namespace in namespaces:
        assert processes_in(namespace) == []
    assert not live()


def test_an_episode_cut_off_at_max_turns_leaves_no_sandbox(calculator: str, processes_in) -> None:
    namespaces: set[str] = set()

    def forever(messages: list[dict[str, Any]], env: swift_gym.Env) -> Any:
        for message in messages:
            if message["role"] == "tool":
                namespaces.add(message["content"].split("\n")[1])
        spawn = "import threading, time\nthreading.Thread(target=time.sleep, args=(600,)).start()\n"
        return {"role": "assistant", "content": "", "tool_calls": [python_call(NS + spawn)]}

    result = swift_gym.evaluate(calculator, forever, episodes=2, max_turns=3)
    assert all(record["num_turns"] == 3 for record in result.records)
    assert len(namespaces) == 2
    for namespace in namespaces:
        assert processes_in(namespace) == []
    assert not live()
