"""The tool env that docs/writing-envs.md shows works as shown: it offers its tool, answers a bad
call with an error the model reads, a good call with its result, and a text reply with a reward."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import swift_gym

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "writing-envs.md").read_text("utf-8")


def example() -> type[swift_gym.Env]:
    section = PAGE.split("## Envs that offer tools", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "no python block in 'Envs that offer tools'"
    namespace: dict = {}
    exec(compile(code.group(1), "writing-envs.md", "exec"), namespace)
    return namespace["WeatherEnv"]


def call(arguments: str, id: str) -> dict:
    return {
        "id": id,
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }


async def play(env: swift_gym.Env) -> list[swift_gym.StepResult]:
    observation, _, _ = await env.reset()
    assert "Oslo" in observation
    assert swift_gym.offered_tools(env).names == ("get_weather",)
    history = [{"role": "user", "content": observation}]
    steps = []
    for reply in (
        {"role": "assistant", "content": "", "tool_calls": [call('{"city": "Oslo"}', "a")]},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [call('{"city": "Oslo", "unit": "c"}', "b")],
        },
        {"role": "assistant", "content": "Wear a coat."},
    ):
        history.append(reply)
        result = await env.step(history)
        steps.append(swift_gym.as_step_result(result, swift_gym.tool_calls(history)))
    return steps


def test_the_weather_env_plays_as_the_page_says() -> None:
    first, second, last = asyncio.run(play(example()()))
    (error,) = first.tool_results
    assert error.is_error and error.tool_call_id == "a"
    assert "missing required property 'unit'" in error.content
    (answer,) = second.tool_results
    assert (answer.tool_call_id, answer.content, answer.is_error) == ("b", "Oslo: -3, snow", False)
    assert (last.reward, last.done, last.tool_results) == (1.0, True, ())
