"""`PythonTool`: the `python` tool any tool env can offer, one sandboxed session per episode.

An env makes one in `reset` (or `__init__`), offers `tool.schema()` among its tools (or
`tool.tools`, a checked `ToolSet`), answers each call to it with `await tool.call(call)`, and
closes it in `close()`. The session starts at the first call, so an episode that never calls
`python` never starts a sandbox. The scheduler closes an env whose episode was cut off at
`max_turns`, so its sandbox ends too; at exit, and when this process is killed, the sandbox
processes die with it (see `process.py`).

What the model reads: its stdout, its stderr, the value of a last expression, a traceback, each
under a label and each bounded by the limits; a limit that ended the call is named.
"""

from __future__ import annotations

from typing import Any

from ..tools.toolset import ToolCall, ToolResult, ToolSet, function_tool
from .limits import SandboxLimits
from .results import CallResult
from .session import MAX_CODE_CHARS, Session

DESCRIPTION = (
    "Run Python code in a sandboxed interpreter (standard library only, no network, no files "
    "but its own work directory). Variables and files persist between calls in this episode. "
    "Returns what the code printed, the value of its last expression, and any traceback."
)


class PythonTool:
    """The `python` tool of one episode: its schema, and a handler backed by one `Session`."""

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        name: str = "python",
        description: str = DESCRIPTION,
    ):
        self.limits = limits or SandboxLimits()
        self.name = name
        code = {
            "type": "string",
            "description": "Python source to run; a last expression's value is shown.",
            "maxLength": MAX_CODE_CHARS,
        }
        self._schema = function_tool(name, description, {"code": code})
        self.tools = ToolSet([self._schema], f"the {name} tool")
        """The tool as a checked ToolSet, for an env that offers only it."""
        self.session = Session(self.limits)

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema (a fresh copy), to list among an env's tools."""
        return self.tools.copy()[0]

    async def call(self, call: ToolCall) -> ToolResult:
        """Answer one call: its arguments checked, its code run in this episode's session.

        Never raises for what the model wrote or what its code did (the result says it); raises
        SandboxUnavailableError when the sandbox cannot run here, which is the operator's to fix.
        """
        result, _ = await self.answer(call)
        return result

    async def answer(self, call: ToolCall) -> tuple[ToolResult, CallResult | None]:
        """`call`'s result and, when its code ran, the raw run (for envs that read what it
        printed); None when the call was refused."""
        checked = self.tools.check(call)
        if isinstance(checked, ToolResult):
            return checked, None
        ran = await self.session.call(checked["code"])
        return ToolResult.for_call(call, format_result(ran, self.limits.output_bytes)), ran

    async def close(self) -> None:
        """End the episode's sandbox (all its processes). Safe to call more than once; a
        closed tool starts a fresh session on its next call."""
        await self.session.close()
        self.session = Session(self.limits)


def format_result(result: CallResult, cap: int) -> str:
    """The text the model reads for `result`."""
    parts = []
    if result.stdout:
        parts.append(f"stdout:\n{result.stdout.rstrip(chr(10))}")
    if result.stderr:
        parts.append(f"stderr:\n{result.stderr.rstrip(chr(10))}")
    if result.value is not None:
        parts.append(f"value: {result.value}")
    if result.error:
        parts.append(f"error:\n{result.error.rstrip(chr(10))}")
    if result.truncated:
        parts.append(f"(output cut: at most {cap:,} characters of each are kept)")
    return "\n".join(parts) if parts else "(no output)"
