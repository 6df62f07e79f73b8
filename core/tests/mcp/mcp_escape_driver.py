"""Opens a stdio MCP server whose child leaves its process group (`setsid`), closes it, and
prints as JSON whether that child outlived the close: run as an unprivileged user by
`test_mcp_tools.py` (the same attack its root test makes).

Usage: `python mcp_escape_driver.py SERVER ESCAPED_DIR` (SERVER: tests/mcp_server.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from swift_gym.mcp import MCPTools, server_process
from swift_gym.mcp.servers import read_servers


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def main() -> None:
    server, escaped = sys.argv[1], sys.argv[2]
    settings = {"command": [sys.executable, server, "stdio"], "env": {"MCP_TEST_ESCAPE": escaped}}
    tools = MCPTools(read_servers({"calc": settings}))
    await tools.open()
    try:
        (child,) = (int(name) for name in os.listdir(escaped))  # written before it answers
        (pid,) = tools.pids
        before = alive(child) and os.getsid(child) == child != os.getsid(pid)
    finally:
        await tools.close()
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    after = alive(child)
    if after:
        os.kill(child, 9)
    report = {
        "uid": os.geteuid(),
        "namespace": server_process.pid_namespaces() is not None,
        "escaped_before_close": before,
        "alive_after_close": after,
    }
    print(json.dumps(report))


asyncio.run(main())
