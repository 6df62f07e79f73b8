"""The conformance kit on envs that offer tools: a StepResult is a valid step, its results must
answer the reply's calls one to one, and the tools offered after reset must be valid."""

from __future__ import annotations

import json

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


CALLED: list[tuple[str, dict]] = []
ROLES_SEEN: set[str] = set()

TWO_TOOLS = ToolSet(
    [
        {
            "type": "function",
            "function": {
                "name": "move",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "direction": {"type": "string", "enum": ["up", "down", "left", "right"]}
                    },
                    "required": ["direction"],
                    "additionalProperties": False,
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "plan",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "steps": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": 3,
                            "items": {"type": "integer", "exclusiveMinimum": 0, "maximum": 4},
                        },
                        "note": {"type": ["string", "null"], "maxLength": 5},
                        "speed": {"anyOf": [{"type": "number", "minimum": 0.5}, {"const": "max"}]},
                        "options": {
                            "type": "object",
                            "properties": {"fast": {"type": "boolean"}},
                            "required": ["fast"],
                        },
                    },
                    "required": ["steps", "options"],
                    "additionalProperties": False,
                },
            },
        },
    ]
)


class TwoToolsEnv(Env):
    """Checks each call with its ToolSet and remembers the valid ones."""

    async def reset(self, request=None):
        return "Move or plan.", {}, "Use the tools."

    def tools(self):
        return TWO_TOOLS

    async def step(self, messages):
        ROLES_SEEN.update(message["role"] for message in messages)
        results = []
        for call in swift_gym.tool_calls(messages):
            checked = TWO_TOOLS.check(call)
            if isinstance(checked, ToolResult):
                results.append(checked)
            else:
                CALLED.append((call.name, checked))
                results.append(ToolResult.for_call(call, "done"))
        return StepResult("Go on.", 0.0, len(messages) > 8, {}, results)


def test_every_tool_is_called_with_arguments_that_match_its_schema() -> None:
    CALLED.clear()
    report = check_env(TwoToolsEnv, [{"seed": 0}], skip=["determinism", "isolation"])
    assert report.ok, str(report)
    assert "tool_calls" in report.checks
    assert {name for name, _ in CALLED} == {"move", "plan"}
    for name, arguments in CALLED:
        assert TWO_TOOLS.check(swift_gym.ToolCall("c", name, json.dumps(arguments))) == arguments


def test_the_kit_sends_tool_results_back_as_tool_messages() -> None:
    ROLES_SEEN.clear()
    up = {"name": "move", "arguments": '{"direction": "up"}'}
    call = {"id": "a", "type": "function", "function": up}
    samples = [{"role": "assistant", "content": "", "tool_calls": [call]}]
    report = check_env(TwoToolsEnv, [{"seed": 0}], sample_replies=samples, skip=["isolation"])
    assert report.ok, str(report)
    assert "tool" in ROLES_SEEN


class AnswersAnything(TwoToolsEnv):
    """Answers every call with "done", never an error."""

    async def step(self, messages):
        calls = swift_gym.tool_calls(messages)
        results = [ToolResult.for_call(call, "done") for call in calls]
        return StepResult("Go on.", 0.0, True, {}, results)


def test_garbage_calls_answered_without_an_error_are_violations() -> None:
    report = check_env(AnswersAnything, [{"seed": 0}], skip=["determinism", "isolation"])
    messages = [violation.message for violation in report.of("tool_calls")]
    for kind in (
        "call to an unknown tool ('no_such_tool'",
        "call with no tool name",
        "call whose arguments are not JSON",
        "call whose arguments are no JSON object",
        "call whose arguments do not match the parameters of 'move'",
        "call whose arguments do not match the parameters of 'plan'",
    ):
        assert any(message.startswith(f"a {kind}") for message in messages), (kind, messages)
    assert all("ToolSet.check(call)" in message for message in messages)
    assert len(messages) == 6


class RaisesOnUnknownTools(TwoToolsEnv):
    async def step(self, messages):
        for call in swift_gym.tool_calls(messages):
            if call.name not in TWO_TOOLS.names:
                raise ValueError(f"no tool named {call.name}")
        return await super().step(messages)


def test_a_call_that_raises_is_a_tool_calls_violation() -> None:
    report = check_env(RaisesOnUnknownTools, [{"seed": 0}], skip=["determinism", "isolation"])
    (unknown, no_name) = report.of("tool_calls")
    assert unknown.message == "step() raised ValueError: 'no tool named no_such_tool'"
    assert (unknown.reply, no_name.reply) == ("'' with 1 tool call", "'' with 1 tool call")
    assert no_name.message == "step() raised ValueError: 'no tool named '"


class Unsatisfiable(TwoToolsEnv):
    def tools(self):
        schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 5,
                  "maximum": 3}}, "required": ["n"]}  # fmt: skip
        return [{"type": "function", "function": {"name": "pick", "parameters": schema}}]


def test_a_schema_no_arguments_can_match_is_reported() -> None:
    report = check_env(Unsatisfiable, [{"seed": 0}], skip=["determinism", "isolation"])
    messages = [violation.message for violation in report.of("tool_calls")]
    assert (
        "no arguments drawn for tool 'pick' matched its parameters in 20 tries: can any value "
        "match them?"
    ) in messages


def test_the_code_lock_test_env_conforms_oracle_included() -> None:
    from tool_envs import CodeLock

    report = check_env(CodeLock, CONFIGS)
    assert report.ok, str(report)


class UnseededAnswers(TwoToolsEnv):
    """Answers a valid call from an unseeded RNG: only tool calls show that it is not
    deterministic, and it has no sample_replies or oracle that would make them."""

    async def step(self, messages):
        import random

        results = []
        for call in swift_gym.tool_calls(messages):
            checked = TWO_TOOLS.check(call)
            if isinstance(checked, ToolResult):
                results.append(checked)
            else:
                results.append(ToolResult.for_call(call, str(random.Random().random())))
        return StepResult("Go on.", 0.0, len(messages) > 8, {}, results)


def test_episodes_of_a_tool_env_without_samples_make_calls_from_the_schemas() -> None:
    ROLES_SEEN.clear()
    assert check_env(TwoToolsEnv, [{"seed": 0}], skip=["tool_calls"]).ok
    assert "tool" in ROLES_SEEN  # the episodes themselves called the tools
    report = check_env(UnseededAnswers, [{"seed": 0}])
    assert report.of("determinism"), str(report)
