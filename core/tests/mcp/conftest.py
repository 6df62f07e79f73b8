"""Fixtures of the MCP tests: real servers (`tests/mcp_server.py`), the operator's settings.

The modules whose tests start servers skip without the mcp SDK; the configuration's tests
need only the core.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mcp_servers import HttpServer


@pytest.fixture
def pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory stdio servers write their pids to (passed on in the servers' env)."""
    directory = tmp_path / "pids"
    directory.mkdir()
    monkeypatch.setenv("MCP_TEST_PIDS", str(directory))
    return directory


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[HttpServer]:
    """A streamable-HTTP MCP server on 127.0.0.1, killed after the test."""
    directory = tmp_path / "http-pids"
    directory.mkdir()
    server = HttpServer(directory)
    yield server
    server.stop()


@pytest.fixture
def configure(monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, object]], str]:
    """Set the operator's SWIFT_GYM_MCP_SERVERS to a mapping of names to settings."""

    def set_servers(servers: dict[str, object]) -> str:
        text = json.dumps(servers)
        monkeypatch.setenv("SWIFT_GYM_MCP_SERVERS", text)
        return text

    return set_servers
