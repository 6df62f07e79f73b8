"""An agent written with the OpenAI Agents SDK (`openai-agents`), made a swift-gym env by
subclassing `AgentEnv`: the SDK's `Runner` drives the loop, and each Chat Completions call its
model makes is one turn that the trainer's policy plays.

The task: add two numbers drawn from the seed. The agent has one function tool, `add`; the SDK
runs each call the model makes and sends the results back; the program scores the final output.
The SDK's model is `OpenAIChatCompletionsModel` over the episode's client (the Responses API,
the SDK's default, has no such endpoint here), and the run's tracing is off: nothing leaves the
process. A policy that writes garbage (an unknown tool, arguments that are no JSON) ends its
episode with reward 0, never with an error.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    RunConfig,
    RunContextWrapper,
    Runner,
    function_tool,
)
from agents.exceptions import AgentsException, MaxTurnsExceeded
from pydantic import Field

from swift_gym import AgentEnv, AgentResult, EnvConfig

INSTRUCTIONS = "You are a careful calculator. Use the add tool, then answer with the number only."


class AgentsSdkConfig(EnvConfig):
    """One question per seed; the SDK's Runner calls the model at most `max_turns` times."""

    max_turns: int = Field(4, ge=1, le=32, description="The Runner's max_turns (model calls).")
    low: int = Field(10, ge=0, le=10**6, description="Smallest number drawn.")
    high: int = Field(99, ge=0, le=10**6, description="Largest number drawn.")


def numbers(config: AgentsSdkConfig) -> tuple[int, int]:
    """The two numbers of the config's seed."""
    rng = random.Random(f"agent-openai-agents/{config.seed}")
    low, high = sorted((config.low, config.high))
    return rng.randint(low, high), rng.randint(low, high)


@dataclass
class Tally:
    """The run's context (the SDK's `RunContextWrapper.context`): what the tool saw."""

    calls: int = 0
    errors: int = 0


def tool_error(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model reads when a call of `add` fails (arguments that are no JSON or do not
    match): counted, and sent back as the tool's result, as the SDK does by default."""
    ctx.context.errors += 1
    return f"Error: add takes integers a and b ({type(error).__name__})."


@function_tool(failure_error_function=tool_error)
def add(ctx: RunContextWrapper[Tally], a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first integer.
        b: The second integer.
    """
    ctx.context.calls += 1
    return a + b


AGENT = Agent[Tally](
    name="calculator",
    instructions=INSTRUCTIONS,
    tools=[add],
)
"""The agent without its model: each episode gives it one bound to its own client."""


class AgentsSdkCalculator(AgentEnv):
    """The agent program: `Runner.run` on an Agents SDK agent with one function tool."""

    config_model = AgentsSdkConfig
    config: AgentsSdkConfig

    def max_turns_hint(self) -> int:
        return self.config.max_turns

    async def run(self, client: Any) -> AgentResult:
        a, b = numbers(self.config)
        model = OpenAIChatCompletionsModel(model="policy", openai_client=client)
        agent = AGENT.clone(model=model)
        tally = Tally()
        status, answer = "wrong", ""
        try:
            result = await Runner.run(
                agent,
                f"What is {a} + {b}?",
                context=tally,
                max_turns=self.config.max_turns,
                run_config=RunConfig(tracing_disabled=True),
            )
        except MaxTurnsExceeded:
            status = "out_of_turns"
        except AgentsException as error:  # the policy's fault: an unknown tool, say
            status = f"model_error: {type(error).__name__}"
        else:
            answer = str(result.final_output or "").strip()
            status = "solved" if answer == str(a + b) else "wrong"
        return AgentResult(
            reward=1.0 if status == "solved" else 0.0,
            metrics={"tool_calls": float(tally.calls), "tool_errors": float(tally.errors)},
            info={"status": status, "answer": answer[:200]},
        )
