"""`mcp_tools`: an env made of MCP servers' tools, a task prompt and an expected answer.

Each row gives a `prompt`, the `answer` it expects and the `mcp_servers` whose tools the
episode offers (names the operator configured, nothing else). The model calls the tools (at
most `max_tool_calls` calls an episode) and ends with a reply without a tool call: its final
answer, read from `<answer>...</answer>` when present, else the whole reply. It scores 1.0 when
it matches `answer` by `match` (`exact`: equal once case and runs of whitespace are ignored;
`contains`: the answer appears in it, the same way; `number`: both read as numbers and equal
within 1e-6 relative), else 0.0, and the episode ends. So it trains and evaluates with no code:
a JSONL of rows and the operator's `SWIFT_GYM_MCP_SERVERS`. A package may declare servers of its
own in code: subclass it and set `servers`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from ..config import EnvConfig
from ..deployment import Deployment
from ..env import Env
from ..replies import reply_text, tool_calls
from ..steps import StepResult
from ..tools.toolset import ToolResult
from .servers import NAME, ServerSpec
from .toolbox import MCPTools

SYSTEM_PROMPT = (
    "Use the tools you are given to find the answer. When you are done, reply without a tool "
    "call, with your final answer in <answer></answer> tags."
)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_SPACE = re.compile(r"\s+")
ServerName = Annotated[str, Field(max_length=64, pattern=f"^{NAME.pattern}$")]


class McpToolsConfig(EnvConfig):
    """A row of `mcp_tools`: the task, its answer, and which configured servers it uses."""

    mcp_servers: list[ServerName] = Field(
        min_length=1,
        max_length=16,
        description="Names of MCP servers the operator configured (SWIFT_GYM_MCP_SERVERS) whose "
        "tools the episode offers; a name only, never a command or a URL.",
    )
    prompt: str = Field(min_length=1, max_length=20_000, description="The task the model reads.")
    answer: str = Field(max_length=2_000, description="The final answer that scores 1.0.")
    match: Literal["exact", "contains", "number"] = Field(
        "exact", description="How the final answer is compared with `answer`."
    )
    system_prompt: str | None = Field(
        None, max_length=20_000, description="The system prompt (default: use the tools, then "
        "answer in <answer></answer> tags)."
    )  # fmt: skip
    max_tool_calls: int = Field(
        8, ge=0, le=64, description="Tool calls an episode may make; later ones are refused."
    )


class McpToolsEnv(Env):
    """A task answered with tools from the operator's MCP servers, scored on the final reply."""

    config_model: ClassVar[type[EnvConfig]] = McpToolsConfig
    config: McpToolsConfig
    deployment = Deployment(uses_operator_services=True)  # starts the operator's MCP servers
    tool_use: ClassVar[str] = "always"  # the servers' tools
    servers: ClassVar[Mapping[str, ServerSpec]] = {}
    """Servers declared in code (trusted), beside the operator's; the operator's win a clash."""

    def __init__(self, env_config: Any = None):
        super().__init__(env_config)
        label = self.env_config.get("name")
        self.mcp = MCPTools.pick(
            self.config.mcp_servers,
            self.servers,
            label if isinstance(label, str) else "mcp_tools",
        )
        self._done = False
        self._made = 0

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        await self.mcp.open()
        self._done, self._made = False, 0
        info = {"servers": list(self.mcp.servers), "tools": list(self.mcp.tools.names)}
        if self.mcp.skipped:
            info["skipped_tools"] = self.mcp.skipped
        return self.config.prompt, info, self.config.system_prompt or SYSTEM_PROMPT

    def tools(self) -> Any:
        return self.mcp.tools

    async def step(self, messages: list[dict[str, Any]]) -> StepResult:
        calls = tool_calls(messages)
        if self._done:
            over = "The episode is over."
            refused = [ToolResult.error(call, over) for call in calls]
            return StepResult(over, 0.0, True, self._info("episode_over"), refused)
        left = self.config.max_tool_calls - self._made
        if calls and left > 0:
            results = []
            for call in calls:
                if self._made < self.config.max_tool_calls:
                    self._made += 1
                    results.append(await self.mcp.call(call))
                else:
                    results.append(ToolResult.error(call, self._used_up()))
            return StepResult("", 0.0, False, self._info("tool_call"), results)
        refused = [
            ToolResult.error(call, f"{self._used_up()} This reply was taken as your answer.")
            for call in calls
        ]
        given = final_answer(reply_text(messages))
        right = matches(given, self.config.answer, self.config.match)
        self._done = True
        info = self._info("correct" if right else "wrong")
        info["metrics"]["success"] = float(right)
        feedback = "Correct." if right else "Not correct."
        return StepResult(feedback, float(right), True, info, refused)

    def _used_up(self) -> str:
        return f"no tool calls are left (this episode allows {self.config.max_tool_calls})."

    def _info(self, status: str) -> dict[str, Any]:
        return {
            "status": status,
            "tool_calls": self._made,
            "metrics": {
                "success": 0.0,
                "tool_calls": float(self._made),
                "tool_errors": float(self.mcp.errors),
            },
        }

    async def close(self) -> None:
        """End the episode's MCP sessions (stdio servers' processes included)."""
        await self.mcp.close()

    @property
    def done(self) -> bool:
        return self._done

    def max_turns_hint(self) -> int:
        """Every tool call in its own reply, then the answer."""
        return self.config.max_tool_calls + 1

    def oracle_reply(self) -> str:
        """The expected answer, in <answer> tags (a check of the scoring, not of the tools)."""
        return f"<answer>{self.config.answer}</answer>"


def final_answer(reply: str) -> str:
    """The last `<answer>...</answer>` of `reply`, else the whole reply."""
    found = _ANSWER.findall(reply)
    return found[-1] if found else reply


def matches(given: str, expected: str, how: str) -> bool:
    """Whether `given` is `expected` by `how` (`exact`, `contains`, `number`)."""
    if how == "number":
        a, b = _number(given), _number(expected)
        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    said, wanted = _plain(given), _plain(expected)
    return said == wanted if how == "exact" else wanted in said


def _plain(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def _number(text: str) -> float | None:
    text = text.strip().replace(",", "")
    if len(text) > 100:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None
