"""A test env that offers a tool and is won only through it, registered by the tests that use it
(an entry point `code_lock = tool_envs:CodeLock` in a distribution they write).

A lock opens for one colour, drawn from the seed. The model tries colours with the tool
`enter_code`; a text reply is told to use the tool. Its oracle calls the tool with the right
colour; it has no `sample_replies`, so the random policy makes its calls from the schema.
"""

from __future__ import annotations

import json
import random
from typing import Any

import swift_gym
from swift_gym import Env, StepResult, ToolResult, ToolSet

COLOURS = ("red", "green", "blue", "yellow")
TOOLS = ToolSet(
    [
        {
            "type": "function",
            "function": {
                "name": "enter_code",
                "description": "Try a colour on the lock.",
                "parameters": {
                    "type": "object",
                    "properties": {"colour": {"type": "string", "enum": list(COLOURS)}},
                    "required": ["colour"],
                    "additionalProperties": False,
                },
            },
        }
    ]
)


def secret_of(seed: int | None) -> str:
    """The colour that opens the lock of `seed` (the tests predict scores with it)."""
    return random.Random(f"code-lock/{seed}").choice(COLOURS)


class CodeLock(Env):
    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        self.secret = secret_of(self.config.seed)
        return (
            "A lock opens for one colour: red, green, blue or yellow. Try them with enter_code.",
            {},
            "You open locks with the tools you are given.",
        )

    def tools(self) -> ToolSet:
        return TOOLS

    def max_turns_hint(self) -> int:
        return len(COLOURS)

    def oracle_reply(self) -> dict[str, Any]:
        arguments = json.dumps({"colour": self.secret})
        call = {"id": "call_oracle", "type": "function"}
        call["function"] = {"name": "enter_code", "arguments": arguments}  # type: ignore[assignment]
        return {"role": "assistant", "content": "", "tool_calls": [call]}

    async def step(self, messages: list[dict[str, Any]]) -> StepResult:
        calls = swift_gym.tool_calls(messages)
        results, opened = [], False
        for call in calls:
            checked = TOOLS.check(call)
            if isinstance(checked, ToolResult):
                results.append(checked)
                continue
            right = checked["colour"] == self.secret
            opened = opened or right
            results.append(ToolResult.for_call(call, "open" if right else "wrong colour"))
        valid = bool(calls) and not any(result.is_error for result in results)
        info: dict[str, Any] = {"metrics": {"valid_action": float(valid)}}
        if opened:
            info["status"] = "opened"
        observation = "The lock opens." if opened else "" if calls else "Use the enter_code tool."
        return StepResult(observation, float(opened), opened, info, results)
