"""Tools an env offers, the model's calls to them, and the results that answer them.

One room for everything about function tools, so a newcomer finds it in one place:

- `toolset`: `ToolCall`, `ToolResult`, `ToolSet` (the offered tools, checked once; each call
  checked against them), `function_tool`, `offered_tools`.
- `schema`: the subset of JSON Schema that tool parameters use, compiled once, checked per call.
- `choice`: `ChoiceTool`, an env's text actions offered as one function with one enum parameter.
- `turns`: a tool turn as chat messages and as record entries.
- `samples`: calls made up from the schemas (valid ones and garbage), for the random policy and
  the conformance kit.
- `use`: the `tool_use` declaration that listing reads without importing an env.
- `for_rows`: the `tools` column `swift-gym dataset` writes for a tool env's rows.

The names below load on first use (PEP 562): `from swift_gym.tools import ToolSet` imports
`toolset` only.
"""

from __future__ import annotations

from ..lazy import attach

_EXPORTS = {
    "ToolCall": "toolset",
    "ToolResult": "toolset",
    "ToolSet": "toolset",
    "function_tool": "toolset",
    "offered_tools": "toolset",
    "Choice": "choice",
    "ChoiceTool": "choice",
}

__all__ = [
    "Choice",
    "ChoiceTool",
    "ToolCall",
    "ToolResult",
    "ToolSet",
    "function_tool",
    "offered_tools",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .choice import Choice, ChoiceTool
    from .toolset import ToolCall, ToolResult, ToolSet, function_tool, offered_tools

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
