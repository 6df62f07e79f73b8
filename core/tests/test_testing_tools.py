"""The conformance kit on envs that offer tools: a StepResult is a valid step, its results must
answer the reply's calls one to one, and the tools offered after reset must be valid."""

from __future__ import annotations

import swift_gym
from swift_gym import Env, StepResult, ToolResult, ToolSet
from swift_gym.testing import CHECKS, check_env

GUESS = ToolSet(
    [
        {
            "type": "function",
            "function": {
                "name": "guess",
                "parameters": {
                    "type": "object",
                    "properties": {"digit": {"type": "integer", "minimum": 0, "maximum": 9}},
                    "required": ["digit"],
                },
            },
        }
    ]
)


def tool_reply(*arguments: str) -> dict:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "guess", "arguments": text}}
        for i, text in enumerate(arguments)
    ]
    return {"role": "assistant", "content": "", "tool_calls": calls}


SAMPLES = [
    tool_reply('{"digit": 3}'),
    tool_reply('{"digit": 3}', '{"digit": "x"}', "{oops"),
    tool_reply('{"digit": 1}', "{}"),
    "7",
]


class ToolDigitEnv(Env):
    """Guess 3 with the `guess` tool; text replies are answered with text."""

    async def reset(self, request=None):
        self.turns = 0
        return "Guess a digit with the guess tool.", {}, "Use the tool."

    def tools(self):
        return GUESS

    def answer(self, calls) -> list[ToolResult]:
        results = []
        for call in calls:
            checked = GUESS.check(call)
            if isinstance(checked, ToolResult):
                results.append(checked)
            else:
                results.append(
                    ToolResult.for_call(call, "right" if checked["digit"] == 3 else "no")
                )
        return results

    async def step(self, messages):
        self.turns += 1
        results = self.answer(swift_gym.tool_calls(messages))
        won = any(result.content == "right" for result in results)
        done = won or self.turns >= 4
        if not results:
            return "Use the guess tool.", 0.0, done, {}
        return StepResult(tool_results=results, reward=float(won), done=done)


class FirstCallOnlyEnv(ToolDigitEnv):
    def answer(self, calls):
        return super().answer(calls)[:1]


class BadToolsEnv(ToolDigitEnv):
    def tools(self):
        return [dict(GUESS[0]), dict(GUESS[0])]


CONFIGS = [{"seed": 0}, {"seed": 1}]


def test_a_tool_env_conforms() -> None:
    report = check_env(ToolDigitEnv, CONFIGS, sample_replies=SAMPLES)
    assert report.ok, str(report)
    assert "tools" in report.checks and "tools" in CHECKS


def test_a_call_left_unanswered_is_a_step_violation() -> None:
    report = check_env(FirstCallOnlyEnv, CONFIGS, sample_replies=SAMPLES)
    messages = [violation.message for violation in report.of("step")]
    assert any("no result for call 'c1'" in message for message in messages), str(report)
    labels = {violation.reply for violation in report.of("step")}
    assert labels <= {"'' with 2 tool calls", "'' with 3 tool calls"} and labels, labels


def test_invalid_tools_are_a_tools_violation_after_reset() -> None:
    report = check_env(BadToolsEnv, CONFIGS, sample_replies=SAMPLES)
    (first, *_) = report.of("tools")
    assert "duplicate tool name 'guess'" in first.message
    assert first.step == 0
