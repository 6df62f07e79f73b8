"""`swift-gym serve` and envs that use what the operator set up (`Env.uses_operator_services`):
`mcp_tools` starts the operator's MCP servers and reaches their hosts, so a client's reset is
never what starts them unless the operator served the env by name (`--allow mcp_tools`).

Real `swift-gym serve` processes on 127.0.0.1, real stdio MCP servers (`mcp_server.py`, which
write their pid to a directory when they start: a test counts the starts).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serve_process
from mcp_servers import pids_in, stdio_settings, wait_gone

pytest.importorskip("mcp")  # the operator's server is a real MCP server
websockets_sync = pytest.importorskip("websockets.sync.client")

MCP_ROW = {
    "name": "mcp_tools",
    "mcp_servers": ["calc"],
    "prompt": "Add 2 and 3 with the tools.",
    "answer": "5",
    "match": "number",
}
RESET = {"type": "reset", "data": {"env_config": MCP_ROW}}


def ask(ws: Any, frame: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(frame))
    return json.loads(ws.recv(timeout=60))


@pytest.fixture
def started(tmp_path: Path) -> Path:
    """The directory the operator's stdio MCP server writes a pid file to, once per start."""
    directory = tmp_path / "pids"
    directory.mkdir()
    return directory


def operator(started: Path) -> dict[str, str]:
    """The operator's settings: one stdio MCP server, `calc`."""
    servers = {"calc": stdio_settings(env={"MCP_TEST_PIDS": str(started), "MCP_TEST_TAME": "1"})}
    return {"SWIFT_GYM_MCP_SERVERS": json.dumps(servers)}


@pytest.fixture
def any_env(started: Path) -> Iterator[serve_process.Server]:
    """`swift-gym serve` with no NAME and no --allow, on a machine whose operator set up an
    MCP server."""
    server = serve_process.start(env=operator(started))
    yield server
    server.stop()


def test_without_name_five_client_resets_start_no_operator_mcp_server(
    any_env: serve_process.Server, started: Path
) -> None:
    """The attack: with no NAME, `mcp_tools` was served, and each client reset started the
    operator's MCP server (five resets, five processes). Now each is refused, saying how the
    operator serves it, and nothing starts."""
    with websockets_sync.connect(any_env.ws_url) as ws:
        for _ in range(5):
            answer = ask(ws, RESET)
            assert answer["type"] == "error", answer
            assert answer["data"]["code"] == "VALIDATION_ERROR"
            message = answer["data"]["message"]
            assert "env 'mcp_tools' is not served here" in message
            assert "swift-gym serve --allow mcp_tools" in message
        # the server goes on serving the envs that are its to serve
        lake = ask(ws, {"type": "reset", "data": {"env_config": {"name": "frozen_lake"}}})
        assert lake["type"] == "observation", lake
    assert pids_in(started) == []
    log = any_env.stderr()
    assert "not served: mcp_tools, openenv" in log and "serve one with --allow NAME" in log
    assert log.count("refused a reset of env mcp_tools") == 1  # told once, not per reset


def test_allow_serves_mcp_tools_and_its_tool_calls_play_through_the_openenv_env(
    started: Path,
) -> None:
    """`--allow mcp_tools`: a reset starts the operator's server (once), a call of its `add`
    comes back as the tool's result, the answer scores, and the server's process ends with the
    episode."""
    import asyncio

    import swift_gym
    from swift_gym import StepResult

    server = serve_process.start("--allow", "mcp_tools", env=operator(started))
    try:
        remote = swift_gym.make({"name": "openenv", "base_url": server.url, "env_config": MCP_ROW})

        async def play() -> tuple[list[str], StepResult, StepResult]:
            await remote.reset()
            names = [tool["function"]["name"] for tool in remote.tools()]
            call = {"id": "call_add", "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}  # fmt: skip
            messages: list[dict[str, Any]] = [
                {"role": "assistant", "content": "", "tool_calls": [call]}
            ]
            added = await remote.step(messages)
            messages.append({"role": "assistant", "content": "<answer>5</answer>"})
            answered = await remote.step(messages)
            await remote.close()
            return names, added, answered

        names, added, answered = asyncio.run(play())
        assert "add" in names
        assert isinstance(added, StepResult) and not added.done
        (result,) = added.tool_results
        assert (result.tool_call_id, result.name, result.content) == ("call_add", "add", "5")
        assert answered.reward == 1.0 and answered.done
        assert answered.info["status"] == "correct"
        assert len(pids_in(started)) == 1
        assert wait_gone(pids_in(started)) == []
    finally:
        server.stop()
