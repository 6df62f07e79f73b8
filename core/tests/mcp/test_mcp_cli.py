"""`swift-gym` with the `mcp_tools` env, run as the installed command against real servers.

The operator's servers come from `SWIFT_GYM_MCP_SERVERS`; rows (a dataset file) pick them by
name. The oracle scores every row; the random policy calls the tools of a stdio and an HTTP
server (a clash of names qualified by server); nothing the command writes shows the HTTP
server's secret header, and no stdio server process is left when it returns.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")  # these tests start real MCP servers

from cli_runner import run
from mcp_servers import ENV_SECRET, SECRET, HttpServer, pids_in, stdio_settings, wait_gone

ROWS = [
    {"prompt": "Add 2 and 3 with the tools.", "answer": "5", "match": "number"},
    {"prompt": "Echo hello on the web server.", "answer": "http: hello"},
    {"prompt": "What is the secret?", "answer": "from-the-operator", "match": "contains"},
]


@pytest.fixture
def tame_server(tmp_path: Path) -> Any:
    """An HTTP server without `die` and `hang` (the random policy calls every tool)."""
    directory = tmp_path / "http-pids"
    directory.mkdir()
    server = HttpServer(directory, tame=True)
    yield server
    server.stop()


def dataset(path: Path, servers: list[str]) -> Path:
    lines = [
        json.dumps(
            {"messages": [], "env_config": {"name": "mcp_tools", "mcp_servers": servers, **r}}
        )
        for r in ROWS
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def operator(http_server: Any) -> dict[str, str]:
    servers = {
        "calc": stdio_settings(env={"MCP_TEST_SECRET": "from-the-operator", "MCP_TEST_TAME": "1"}),
        "web": http_server.settings(call_timeout_seconds=5),
    }
    return {"SWIFT_GYM_MCP_SERVERS": json.dumps(servers)}


def test_eval_oracle_and_random_against_both_servers(
    tmp_path: Path, pids: Path, tame_server: Any
) -> None:
    rows = dataset(tmp_path / "rows.jsonl", ["calc", "web"])
    env = operator(tame_server)
    oracle = run("eval", "--dataset", str(rows), "--policy", "oracle", "--json", env=env)
    assert oracle.returncode == 0, oracle.stderr
    assert json.loads(oracle.stdout)["success_rate"] == 1.0

    out = tmp_path / "random.jsonl"
    played = run(
        "eval", "--dataset", str(rows), "--policy", "random", "-n", "8", "-o", str(out),
        "--json", env=env,
    )  # fmt: skip
    assert played.returncode in (0, 1), played.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records and all(r["reset_info"]["servers"] == ["calc", "web"] for r in records)
    names = {t["function"]["name"] for t in records[0]["tools"]}
    assert {"calc__echo", "web__echo", "calc__add", "web__add"} <= names
    answered = {
        call["name"]: result
        for record in records
        for turn in record["turns"]
        for call, result in zip(turn["tool_calls"], turn["tool_results"], strict=True)
        if not result["content"].startswith("Error")
    }
    assert {n.split("__")[0] for n in answered if "__" in n} == {"calc", "web"}  # both served
    for text in (played.stdout, played.stderr, out.read_text(), oracle.stdout, oracle.stderr):
        assert SECRET not in text
    assert pids_in(pids) and wait_gone(pids_in(pids), 0) == []


def test_a_server_that_prints_its_environment_puts_no_secret_in_evals_output(
    tmp_path: Path,
) -> None:
    prints = "import os, sys; print(dict(os.environ), file=sys.stderr); sys.exit(2)"
    leaky = {"command": [sys.executable, "-c", prints], "env": {"API_KEY": ENV_SECRET}}
    rows = dataset(tmp_path / "rows.jsonl", ["leaky"])
    out = tmp_path / "t.jsonl"
    played = run(
        "eval", "--dataset", str(rows), "--policy", "oracle", "-o", str(out), "--json",
        env={"SWIFT_GYM_MCP_SERVERS": json.dumps({"leaky": leaky})},
    )  # fmt: skip
    assert played.returncode == 1, played.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in records] == ["error"] * len(ROWS)
    assert all("'API_KEY': '[redacted: env API_KEY]'" in r["error"] for r in records)
    for text in (played.stdout, played.stderr, out.read_text()):
        assert ENV_SECRET not in text


def test_a_row_naming_an_unconfigured_server_is_a_bad_row(tmp_path: Path, tame_server: Any) -> None:
    rows = dataset(tmp_path / "rows.jsonl", ["calc", "sh -c 'touch pwned'"])
    result = run("validate", str(rows), env=operator(tame_server), cwd=tmp_path)
    assert result.returncode == 1
    assert "mcp_servers.1" in result.stdout + result.stderr
    played = run("eval", "--dataset", str(rows), "--policy", "oracle", env=operator(tame_server),
                 cwd=tmp_path)  # fmt: skip
    assert played.returncode != 0
    assert "unknown MCP server" in played.stdout + played.stderr or "pattern" in played.stderr
    assert not (tmp_path / "pwned").exists()


def test_info_lists_the_config_fields() -> None:
    result = run("info", "mcp_tools")
    assert result.returncode == 0, result.stderr
    for field in ("mcp_servers", "prompt", "answer", "match", "max_tool_calls"):
        assert field in result.stdout
