"""The `python` tool of one reasoning-gym episode (`tools: ["python"]`): its budget and session.

The model may call `python` (swift-gym's sandboxed `PythonTool`, one session per episode) up to
`max_tool_calls` times; every call counts, refused ones included, so an episode has at most
`max_tool_calls` tool turns whatever the model writes. The limits of the sandbox are the
operator's (`SWIFT_GYM_SANDBOX_LIMITS`, read by `swift_gym.sandbox.operator_limits`): nothing in
a row reaches them. The session starts at the first call and ends when the episode does
(`close`), also when it is cut off: the scheduler and the evaluator close the env.

The oracle plays through the tool: it runs code that prints the stored answer, then answers with
what the sandbox printed (`printed`), so its 1.0 shows that every one of its calls ran.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from swift_gym import ToolCall, ToolResult
from swift_gym.sandbox import PythonTool, SandboxLimits
from swift_gym.tools.turns import assistant_message

ORACLE_CALL_ID = "call_oracle_{}"


def tool_prompt(max_calls: int) -> str:
    """What the system prompt adds when the episode offers `python`."""
    plural = "s" * (max_calls != 1)
    return (
        f"\nYou may call the python tool to run Python code (at most {max_calls} call{plural} "
        "in this episode); it shows what the code printed. When you are done, reply without a "
        "tool call, with your final answer in <answer></answer> tags."
    )


class PythonUse:
    """The episode's `python` tool: calls answered within the budget, the newest output kept."""

    def __init__(self, max_calls: int, limits: SandboxLimits):
        self.max_calls = max_calls
        self.tool = PythonTool(limits)
        self.made = 0
        self.printed: str | None = None
        """What the newest call that ran printed (its stdout, less one final newline)."""

    @property
    def tools(self) -> Any:
        return self.tool.tools

    @property
    def left(self) -> int:
        return max(0, self.max_calls - self.made)

    async def answer(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """A result per call: run while the budget lasts, refused past it."""
        results = []
        for call in calls:
            if self.left <= 0:
                results.append(ToolResult.error(call, self.used_up()))
                continue
            self.made += 1
            result, ran = await self.tool.answer(call)
            if ran is not None:
                self.printed = ran.stdout[:-1] if ran.stdout.endswith("\n") else ran.stdout
            results.append(result)
        return results

    def refuse(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Error results for calls made when no call is left (the reply is scored instead)."""
        why = f"{self.used_up()} This reply was taken as your answer."
        return [ToolResult.error(call, why) for call in calls]

    def used_up(self) -> str:
        plural = "s" * (self.max_calls != 1)
        return (
            f"no python calls are left (this episode allows {self.max_calls} call{plural}). "
            "Reply without a tool call, with your answer in <answer></answer> tags."
        )

    def oracle_call(self, answer: str) -> dict[str, Any]:
        """The assistant message that runs code printing `answer`."""
        code = f"answer = {answer!r}\nprint(answer)"
        arguments = json.dumps({"code": code})
        call = ToolCall(ORACLE_CALL_ID.format(self.made), self.tool.name, arguments)
        return assistant_message("", [call])

    async def restart(self) -> None:
        """A new episode: the old session ends, the budget is whole again."""
        await self.tool.close()
        self.made, self.printed = 0, None

    async def close(self) -> None:
        await self.tool.close()
