"""Tools from MCP servers (the official `mcp` SDK; `pip install "./core[mcp]"`).

The operator names servers (`SWIFT_GYM_MCP_SERVERS`: stdio commands, streamable-HTTP URLs, and
their settings); an env, or a row through its config, picks among them by name only.
`MCPTools` gives any env those servers' tools, one session per server per episode, closed
with the episode; `McpToolsEnv` (registered as `mcp_tools`) is a whole env made of them: a
prompt, the chosen servers' tools, and an expected answer that scores the final reply.
Nothing here imports the SDK until a server is opened.
"""

from __future__ import annotations

from ..lazy import attach

_EXPORTS = {
    "MCPTools": "toolbox",
    "MCPServerError": "servers",
    "MCPServerDownError": "servers",
    "McpToolsEnv": "env",
    "StdioServer": "servers",
    "HttpServer": "servers",
    "operator_servers": "servers",
    "read_servers": "servers",
    "SERVERS_VARIABLE": "servers",
}
__all__ = [
    "SERVERS_VARIABLE",
    "HttpServer",
    "MCPServerDownError",
    "MCPServerError",
    "MCPTools",
    "McpToolsEnv",
    "StdioServer",
    "operator_servers",
    "read_servers",
]
__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
