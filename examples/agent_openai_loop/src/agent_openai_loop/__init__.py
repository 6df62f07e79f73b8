"""A plain `openai` tool loop, written as it would be against any OpenAI-compatible server, and
made a swift-gym env by subclassing `AgentEnv`: each `chat.completions.create` is one turn that
the trainer's policy plays.

The task: add two numbers drawn from the seed. The program offers the tool `add`, runs each
call the model makes, sends the results back, and scores the model's final answer.
"""

from __future__ import annotations

import json
import random
from typing import Any

from pydantic import Field

from swift_gym import AgentEnv, AgentResult, EnvConfig

SYSTEM = "You are a careful calculator. Use the add tool, then answer with the number only."
ADD = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    },
}


class CalculatorConfig(EnvConfig):
    """One question per seed; the program calls the model at most `max_calls` times."""

    max_calls: int = Field(4, ge=1, le=32, description="Model calls before the program gives up.")
    low: int = Field(10, ge=0, le=10**6, description="Smallest number drawn.")
    high: int = Field(99, ge=0, le=10**6, description="Largest number drawn.")


def numbers(config: CalculatorConfig) -> tuple[int, int]:
    """The two numbers of the config's seed."""
    rng = random.Random(f"agent-openai-loop/{config.seed}")
    low, high = sorted((config.low, config.high))
    return rng.randint(low, high), rng.randint(low, high)


def run_tool(call: Any) -> str:
    """One tool call's result (errors as text the model reads, never an exception)."""
    if call.function.name != "add":
        return f"Error: unknown tool {call.function.name!r}; the tool is 'add'."
    try:
        arguments = json.loads(call.function.arguments or "{}")
        return str(int(arguments["a"]) + int(arguments["b"]))
    except (ValueError, TypeError, KeyError) as error:
        return f"Error: add takes integers a and b ({type(error).__name__})."


class CalculatorAgent(AgentEnv):
    """The agent program: an ordinary OpenAI tool loop."""

    config_model = CalculatorConfig
    config: CalculatorConfig

    def max_turns_hint(self) -> int:
        return self.config.max_calls

    async def run(self, client: Any) -> AgentResult:
        a, b = numbers(self.config)
        messages: list[Any] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"What is {a} + {b}?"},
        ]
        calls = errors = 0
        for _ in range(self.config.max_calls):
            completion = await client.chat.completions.create(
                model="policy", messages=messages, tools=[ADD]
            )
            message = completion.choices[0].message
            messages.append(message)
            if not message.tool_calls:
                answer = (message.content or "").strip()
                solved = answer == str(a + b)
                return AgentResult(
                    reward=1.0 if solved else 0.0,
                    metrics={"tool_calls": float(calls), "tool_errors": float(errors)},
                    info={"status": "solved" if solved else "wrong", "answer": answer[:200]},
                )
            for call in message.tool_calls:
                result = run_tool(call)
                calls += 1
                errors += result.startswith("Error:")
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        return AgentResult(
            reward=0.0,
            metrics={"tool_calls": float(calls), "tool_errors": float(errors)},
            info={"status": "out_of_calls"},
        )
