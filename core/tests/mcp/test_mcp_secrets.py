"""The operator's secrets (a stdio server's `env`, an HTTP server's `headers` and URL) never
reach an error, a tool's error result or a log line, whatever a server prints or answers.

Each test is an attack by a careless server, a real one: it prints its whole environment to
stderr and exits at start; a tool fails with an error that repeats its secrets; and the HTTP
client's own INFO log of each request, which showed a URL's `?token=` and `user:password@`.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")  # these tests start real MCP servers

from mcp_servers import ENV_SECRET, SECRET, stdio_settings

from swift_gym import ToolCall
from swift_gym.mcp import MCPServerError, MCPTools
from swift_gym.mcp.servers import read_servers

PRINTS = {
    # its whole environment, as a dict and as JSON: the end is shown (its last 500 characters)
    "environment": "print('x' * 600, dict(os.environ), json.dumps(dict(os.environ)))",
    # the secret cut where the shown end begins: none of it may show
    "cut by the 500 shown": "print(os.environ['API_KEY'] + 'y' * 490)",
    # the secret cut where the 4,096 bytes kept of stderr end: none of it may show
    "cut by the 4 KiB kept": "print('z' * 4090 + os.environ['API_KEY'] + 'y' * 10)",
}


def tools_of(servers: dict[str, Any]) -> MCPTools:
    return MCPTools(read_servers(servers))


@pytest.mark.parametrize("prints", PRINTS)
async def test_a_server_that_prints_its_secret_at_start_shows_none(prints: str) -> None:
    code = f"import json, os, sys\nsys.stdout = sys.stderr\n{PRINTS[prints]}\nsys.exit(2)"
    env = {"API_KEY": ENV_SECRET, "DEBUG": "1"}
    tools = tools_of({"leaky": {"command": [sys.executable, "-c", code], "env": env}})
    with pytest.raises(MCPServerError) as raised:
        await tools.open()
    text = str(raised.value)
    assert "failed to start: the server exited (status 2); its stderr: ..." in text
    for part in (ENV_SECRET, ENV_SECRET[:6], ENV_SECRET[-6:]):
        assert part not in text
    if prints == "environment":
        assert '"API_KEY": "[redacted: env API_KEY]"' in text
        assert '"DEBUG": "1"' in text  # a value too short to be a secret is left alone


@pytest.mark.parametrize("kind", ["stdio", "http"])
async def test_a_tool_error_that_repeats_the_secrets_shows_none(
    pids: Path, request: pytest.FixtureRequest, kind: str
) -> None:
    if kind == "stdio":
        settings, label = stdio_settings(env={"MCP_TEST_SECRET": ENV_SECRET}), "env MCP_TEST_SECRET"
    else:
        settings, label = request.getfixturevalue("http_server").settings(), "header Authorization"
    tools = tools_of({"leaky": settings})
    await tools.open()
    try:
        result = await tools.call(ToolCall("call_leak", "leak", "{}"))
    finally:
        await tools.close()
    assert result.is_error and "cannot log in with" in result.content
    assert f"[redacted: {label}]" in result.content
    assert ENV_SECRET not in result.content and SECRET not in result.content


async def test_the_http_clients_request_log_shows_no_query_nor_password(
    pids: Path, http_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """httpx logs `HTTP Request: POST <url> "HTTP/1.1 200 OK"` at INFO for each request, the
    SDK its URL at DEBUG: no log line of any level may show the token or the password."""
    url = http_server.url.replace("://", f"://operator:{SECRET}@") + f"?token={ENV_SECRET}"
    tools = tools_of({"web": {"url": url}})
    caplog.set_level(logging.DEBUG)
    await tools.open()
    try:
        assert (
            await tools.call(ToolCall("call_add", "add", json.dumps({"a": 1, "b": 2})))
        ).content == "3"
    finally:
        await tools.close()
    logged = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert any(f"POST {http_server.url} " in line for line in logged)  # the request, its path
    for line in [r.getMessage() for r in caplog.records]:
        assert ENV_SECRET not in line and SECRET not in line and "token=" not in line
