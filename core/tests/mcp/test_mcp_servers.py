"""The operator's MCP servers, and what a row may pick among them: names only.

A row that names a command, a URL, a header or an unconfigured server is a config error, told
before anything starts; the secrets of the operator's settings (a command's env, a URL's
headers) never appear in a repr or an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import pytest
from mcp_servers import SECRET, pids_in, stdio_settings

from swift_gym import InvalidConfigError, make
from swift_gym.mcp import HttpServer, StdioServer, operator_servers, read_servers

Configure = Callable[[dict[str, object]], str]


def test_the_operator_names_stdio_commands_and_urls(configure: Configure) -> None:
    configure(
        {
            "calc": stdio_settings(env={"TOKEN": SECRET}, call_timeout_seconds=5),
            "web": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": SECRET}},
        }
    )
    servers = operator_servers()
    assert isinstance(servers["calc"], StdioServer)
    assert servers["calc"].call_timeout_seconds == 5
    assert isinstance(servers["web"], HttpServer)
    assert SECRET not in repr(servers)
    assert servers["web"].headers["Authorization"].get_secret_value() == SECRET


def test_the_variable_may_name_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"calc": stdio_settings()}))
    monkeypatch.setenv("SWIFT_GYM_MCP_SERVERS", str(path))
    assert list(operator_servers()) == ["calc"]
    monkeypatch.setenv("SWIFT_GYM_MCP_SERVERS", str(tmp_path / "missing.json"))
    with pytest.raises(ValueError, match="SWIFT_GYM_MCP_SERVERS must be a JSON object or"):
        operator_servers()


@pytest.mark.parametrize(
    ("servers", "said"),
    [
        ({"a": {"command": ["x"], "url": "http://h/mcp"}}, "a: give an object with 'command'"),
        ({"a": {}}, "a: give an object with 'command'"),
        ({"a b": {"command": ["x"]}}, "a server name must match"),
        ({"a": {"command": []}}, "a.command: List should have at least 1 item"),
        ({"a": {"url": "file:///etc/passwd"}}, "a.url: String should match pattern"),
        ({"a": {"url": "http://h/mcp", "headers": {"X": SECRET}, "shell": True}}, "a.shell"),
        ({"a": {"command": ["x"], "call_timeout_seconds": 0}}, "a.call_timeout_seconds"),
    ],
)
def test_bad_settings_name_the_place_never_a_secret(servers: object, said: str) -> None:
    with pytest.raises(ValueError, match=said) as raised:
        read_servers(servers)
    assert SECRET not in str(raised.value)


def test_a_bad_variable_names_itself_and_shows_no_value(configure: Configure) -> None:
    configure({"web": {"url": "ftp://h", "headers": {"Authorization": SECRET}}})
    with pytest.raises(ValueError, match=r"SWIFT_GYM_MCP_SERVERS is not valid: web\.url") as raised:
        operator_servers()
    assert SECRET not in str(raised.value)


def row(**fields: object) -> dict[str, object]:
    return {"name": "mcp_tools", "prompt": "2 + 3?", "answer": "5", **fields}


def test_a_row_picks_servers_by_name(configure: Configure) -> None:
    configure({"calc": stdio_settings()})
    env = make(row(mcp_servers=["calc"]))
    assert list(env.mcp.servers) == ["calc"]


@pytest.mark.parametrize(
    "fields",
    [
        {"mcp_servers": [{"command": ["sh", "-c", "touch /tmp/pwned"]}]},
        {"mcp_servers": ["sh -c 'touch /tmp/pwned'"]},
        {"mcp_servers": ["http://127.0.0.1:9/mcp"]},
        {"mcp_servers": ["calc"], "command": ["sh"]},
        {"mcp_servers": ["calc"], "url": "http://127.0.0.1:9/mcp"},
        {"mcp_servers": ["calc"], "headers": {"Authorization": "x"}},
        {"mcp_servers": {"calc": {"command": ["sh"]}}},
        {"mcp_servers": []},
    ],
)
def test_a_row_never_gives_a_command_a_url_or_headers(
    configure: Configure, fields: dict, pids: Path
) -> None:
    configure({"calc": stdio_settings()})
    with pytest.raises(InvalidConfigError):
        make(row(**fields))
    assert pids_in(pids) == []  # no server was started


def test_an_unconfigured_server_is_a_config_error_naming_the_configured(
    configure: Configure, pids: Path
) -> None:
    configure({"calc": stdio_settings(), "web": {"url": "http://127.0.0.1:9/mcp"}})
    with pytest.raises(InvalidConfigError) as raised:
        make(row(mcp_servers=["calc", "clac2"]))
    text = str(raised.value)
    assert "mcp_servers.1: unknown MCP server (got 'clac2')" in text
    assert "did you mean 'calc'?" in text
    assert "configured MCP servers: calc, web" in text
    assert "127.0.0.1:9" not in text  # names only, never settings
    assert pids_in(pids) == []  # no server was started


def test_without_servers_the_error_says_who_configures_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SWIFT_GYM_MCP_SERVERS", raising=False)
    with pytest.raises(InvalidConfigError, match="the operator sets SWIFT_GYM_MCP_SERVERS"):
        make(row(mcp_servers=["calc"]))


def test_servers_declared_in_code_are_picked_like_the_operators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from swift_gym.mcp import McpToolsEnv

    monkeypatch.delenv("SWIFT_GYM_MCP_SERVERS", raising=False)

    class Declared(McpToolsEnv):
        servers: ClassVar = {"calc": StdioServer(**stdio_settings())}  # type: ignore[arg-type]

    env = Declared(row(mcp_servers=["calc"]))
    assert list(env.mcp.servers) == ["calc"]


def test_redact_takes_each_secret_out_in_the_forms_a_server_writes() -> None:
    from swift_gym.mcp.redaction import redact

    secrets = {
        "env KEY": 'k3y "quoted" \\ value',
        "env DEBUG": "1",
        "header Auth": f"Bearer {SECRET}",
    }
    said = [
        'k3y "quoted" \\ value',  # as written
        json.dumps({"KEY": 'k3y "quoted" \\ value'}),  # JSON-escaped
        repr({"KEY": 'k3y "quoted" \\ value'}),  # a dict's repr
        "k3y%20%22quoted%22%20%5C%20value",  # percent-encoded
        f"token {SECRET} refused",  # the token of `Bearer <token>` alone
    ]
    for text in said:
        cleaned = redact(text, secrets)
        assert "k3y" not in cleaned and SECRET not in cleaned
        assert "[redacted: env KEY]" in cleaned or "[redacted: header Auth]" in cleaned
    assert redact("DEBUG=1 Bearer", secrets) == "DEBUG=1 Bearer"  # too short to be secrets
    assert (
        redact(f"... Bear: {SECRET[:5]}", secrets, cut=True)
        == "... Bear: [redacted: header Auth, cut]"
    )
    assert redact(f"... {SECRET[:5]}", secrets) == f"... {SECRET[:5]}"  # not cut: a mere prefix


def test_a_servers_secrets_are_its_env_its_headers_and_its_urls_credentials() -> None:
    stdio = StdioServer(command=["x"], env={"API_KEY": SECRET})  # type: ignore[arg-type]
    assert stdio.secrets() == {"env API_KEY": SECRET}
    http = HttpServer(
        url=f"https://me:p%40ss@h/mcp?token={SECRET}&v=2",
        headers={"Authorization": f"Bearer {SECRET}"},  # type: ignore[dict-item]
    )
    assert http.secrets() == {
        "header Authorization": f"Bearer {SECRET}",
        "URL password": "p@ss",
        "URL query token": SECRET,
        "URL query v": "2",
    }
