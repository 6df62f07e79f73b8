"""`MCPTools` against real servers: a stdio command it starts and an HTTP server on 127.0.0.1.

One session per server per episode, its tools offered as checked function tools (a name both
servers offer is qualified by the server's), each call answered by its own server; a tool error,
a 10 MB result, a server that dies mid-call and one that hangs each end as an error result or a
bounded one, never a hang or an exception; and no stdio server process outlives `close()`, a
dropped env, or this process.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")  # these tests start real MCP servers

from mcp_servers import SECRET, alive, pids_in, stdio_settings, wait_gone

from swift_gym import ToolCall
from swift_gym.errors import EnvUnavailableError
from swift_gym.mcp import MCPServerDownError, MCPServerError, MCPTools, server_process
from swift_gym.mcp.servers import read_servers
from swift_gym.mcp.stdio import live_pids


def tools_of(servers: dict[str, Any]) -> MCPTools:
    return MCPTools(read_servers(servers))


def settings_of(kind: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """A stdio server's settings, or an HTTP server's (started only for those tests)."""
    if kind == "stdio":
        return stdio_settings()
    return request.getfixturevalue("http_server").settings()


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(f"call_{name}", name, json.dumps(arguments))


def kill(pid: int) -> None:
    """SIGKILL `pid` if it still runs (a test that failed leaves no sleeper behind)."""
    if alive(pid):
        os.kill(pid, signal.SIGKILL)


async def test_a_stdio_server_per_episode_gone_at_close(pids: Path) -> None:
    tools = tools_of({"calc": stdio_settings(env={"MCP_TEST_SECRET": "from-the-operator"})})
    await tools.open()
    (pid,) = tools.pids
    assert alive(pid) and pids_in(pids) == [pid]
    assert {"add", "echo", "secret", "big", "fail", "die", "hang"} <= set(tools.tools.names)
    assert (await tools.call(call("add", a=2, b=3))).content == "5"
    assert (await tools.call(call("secret"))).content == "from-the-operator"
    await tools.close()
    assert not alive(pid) and live_pids() == []
    await tools.open()  # the next episode: a new session, a new process
    (again,) = tools.pids
    assert again != pid and alive(again)
    await tools.close()
    assert not alive(again)


async def test_what_a_stdio_server_starts_in_a_session_of_its_own_is_gone_at_close(
    pids: Path, tmp_path: Path, bwrap: str
) -> None:
    """A daemon's `setsid` leaves the server's process group: it must not outlive `close()`
    (the server's PID namespace holds it)."""
    assert server_process.pid_namespaces() == bwrap  # else the warning says why
    escaped = tmp_path / "escaped"
    escaped.mkdir()
    tools = tools_of({"calc": stdio_settings(env={"MCP_TEST_ESCAPE": str(escaped)})})
    await tools.open()
    try:
        (child,) = pids_in(escaped)  # written before the server answers
        (server,) = tools.pids
        assert alive(child) and os.getsid(child) == child != os.getsid(server)
    finally:
        await tools.close()
    try:
        assert not alive(child) and not alive(server)
    finally:
        kill(child)


def test_what_a_stdio_server_starts_in_a_session_of_its_own_is_gone_at_close_unprivileged(
    nobody: Any, bwrap: str
) -> None:
    """The same attack with swift-gym run by an unprivileged user: bubblewrap gives the server
    its PID namespace inside a user namespace, and the `setsid` child still dies at close."""
    from mcp_servers import SERVER

    nobody.copy(SERVER, Path(__file__).with_name("mcp_escape_driver.py"))
    escaped = nobody.home / "escaped"
    escaped.mkdir(exist_ok=True)
    os.chown(escaped, nobody.UID, nobody.UID)
    done = nobody.run("mcp_escape_driver.py", str(nobody.home / SERVER.name), str(escaped))
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["uid"] == nobody.UID and report["namespace"], report
    assert report["escaped_before_close"], report  # the child had left the server's group
    assert not report["alive_after_close"], report


FAILING_BWRAP = "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"


@pytest.mark.parametrize("why", ["no bwrap", "bwrap refused", "pid_namespace false"])
async def test_without_a_pid_namespace_a_server_runs_in_a_process_group_of_its_own(
    pids: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    why: str,
) -> None:
    """Where bubblewrap is missing or refused a namespace, the server runs as before (and a
    warning says what it lacks); `pid_namespace: false` asks for that, without a warning."""
    if why != "pid_namespace false":
        monkeypatch.setenv("PATH", str(tmp_path))
        if why == "bwrap refused":
            (tmp_path / "bwrap").write_text(FAILING_BWRAP)
            (tmp_path / "bwrap").chmod(0o755)
    server_process.pid_namespaces.cache_clear()
    settings = stdio_settings(pid_namespace=why != "pid_namespace false")
    tools = tools_of({"calc": settings})
    try:
        with caplog.at_level(logging.WARNING, logger="swift_gym.mcp"):
            await tools.open()
        (pid,) = tools.pids
        assert pids_in(pids) == [pid] and os.getpgid(pid) == pid  # its own group, not ours
        assert (await tools.call(call("add", a=1, b=2))).content == "3"
    finally:
        await tools.close()
        server_process.pid_namespaces.cache_clear()
    assert not alive(pid)
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    if why == "pid_namespace false":
        assert warned == []
    else:
        said = "not installed" if why == "no bwrap" else "No permissions to create new namespace"
        (warning,) = warned
        assert "MCP stdio servers run without a PID namespace of their own" in warning
        assert said in warning and "can outlive it" in warning


async def test_both_kinds_together_with_a_name_clash(pids: Path, http_server: Any) -> None:
    tools = tools_of({"calc": stdio_settings(), "web": http_server.settings()})
    await tools.open()
    names = set(tools.tools.names)
    assert {"calc__echo", "web__echo", "calc__add", "web__add"} <= names
    assert "echo" not in names
    assert (await tools.call(call("calc__echo", text="hi"))).content == "stdio: hi"
    assert (await tools.call(call("web__echo", text="hi"))).content == "http: hi"
    assert (await tools.call(call("web__header"))).content == f"Bearer {SECRET}"  # it arrives
    assert (await tools.call(call("calc__header"))).content == "(stdio)"
    await tools.close()
    assert wait_gone(pids_in(pids), 0) == []


async def test_calls_are_checked_before_they_reach_a_server(pids: Path) -> None:
    tools = tools_of({"calc": stdio_settings()})
    await tools.open()
    try:
        unknown = await tools.call(call("ad", a=1, b=2))
        assert unknown.is_error and "Did you mean 'add'?" in unknown.content
        wrong = await tools.call(ToolCall("c", "add", '{"a": "one", "b": 2}'))
        assert wrong.is_error and "do not match its parameters" in wrong.content
    finally:
        await tools.close()


async def test_a_tool_error_and_content_that_is_no_text(pids: Path) -> None:
    tools = tools_of({"calc": stdio_settings()})
    await tools.open()
    try:
        failed = await tools.call(call("fail", why="on purpose"))
        assert failed.is_error and failed.content.startswith("Error")
        assert "failed on purpose: on purpose" in failed.content
        picture = await tools.call(call("picture"))
        assert picture.content == "[image content: image/png, not shown]"
        assert not picture.is_error
    finally:
        await tools.close()


@pytest.mark.parametrize("kind", ["stdio", "http"])
async def test_a_10_mb_result_is_cut_for_the_model(
    pids: Path, request: pytest.FixtureRequest, kind: str
) -> None:
    settings = settings_of(kind, request)
    tools = tools_of({"big": {**settings, "max_result_chars": 1000}})
    await tools.open()
    try:
        result = await tools.call(call("big", size=10_000_000))
        assert not result.is_error
        assert result.content.startswith("x" * 1000 + "\n(result cut: 10,000,000 characters")
        assert len(result.content) < 1100
        assert (await tools.call(call("add", a=1, b=1))).content == "2"  # the session goes on
    finally:
        await tools.close()


async def test_a_stdio_message_past_the_limit_ends_that_session_only(pids: Path) -> None:
    tools = tools_of({"small": stdio_settings(max_message_bytes=65_536), "calc": stdio_settings()})
    await tools.open()
    try:
        result = await tools.call(call("small__big", size=1_000_000))
        assert result.is_error
        assert "'small' is gone (the server sent a message over 65,536 bytes)" in result.content
        assert (await tools.call(call("calc__add", a=1, b=1))).content == "2"
    finally:
        await tools.close()
    assert wait_gone(pids_in(pids), 0) == []


async def test_a_stdio_server_that_dies_mid_call(pids: Path) -> None:
    tools = tools_of({"calc": stdio_settings(call_timeout_seconds=120)})
    await tools.open()
    (pid,) = tools.pids
    try:
        died = await tools.call(call("die"))
        assert died.is_error
        assert died.content == (
            "Error: the MCP server 'calc' is gone (the server exited (status 3)); "
            "its tools cannot be called now"
        )  # the connection's end, not the 120 s timeout
        later = await tools.call(call("add", a=1, b=1))
        assert later.is_error and "is gone" in later.content
    finally:
        await tools.close()
    assert not alive(pid)


async def test_an_http_server_that_dies_mid_call(pids: Path, http_server: Any) -> None:
    tools = tools_of({"web": http_server.settings(call_timeout_seconds=120)})
    await tools.open()
    try:
        died = await tools.call(call("die"))
        assert died.is_error and "web" in died.content
        assert "did not answer" not in died.content  # told, not timed out
        later = await tools.call(call("add", a=1, b=1))
        assert later.is_error
        assert SECRET not in died.content + later.content
    finally:
        await tools.close()


@pytest.mark.parametrize("kind", ["stdio", "http"])
async def test_a_server_that_hangs_is_bounded_by_the_call_timeout(
    pids: Path, request: pytest.FixtureRequest, kind: str
) -> None:
    settings = settings_of(kind, request)
    tools = tools_of({"slow": {**settings, "call_timeout_seconds": 1}})
    await tools.open()
    pid = tools.pids
    try:
        hung = await tools.call(call("hang", seconds=600))
        assert hung.is_error
        assert hung.content == "Error: the tool 'hang' did not answer within 1 s"
    finally:
        await tools.close()  # a stdio server blocked in the call is killed
    assert wait_gone(pid, 0) == []


async def test_a_timed_out_http_call_leaves_the_session_usable(
    pids: Path, http_server: Any
) -> None:
    """The call's response stream is cut when the HTTP client's read timeout (the call timeout
    plus 5 s) passes: a timeout, not a broken connection, so the server's other tools go on."""
    tools = tools_of({"web": http_server.settings(call_timeout_seconds=1)})
    await tools.open()
    try:
        napping = await tools.call(call("nap", seconds=600))
        assert napping.content == "Error: the tool 'nap' did not answer within 1 s"
        await asyncio.sleep(7)  # past the read timeout of the napping call's stream
        assert (await tools.call(call("add", a=1, b=1))).content == "2"
    finally:
        await tools.close()


async def test_reset_and_steps_on_different_loops(pids: Path) -> None:
    """ms-swift's colocate mode: reset on one event loop, the turns on another."""
    tools = tools_of({"calc": stdio_settings()})

    def on_a_new_loop(coroutine: Any) -> Any:
        result: dict[str, Any] = {}

        def run() -> None:
            result["value"] = asyncio.run(coroutine)

        import threading

        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        return result["value"]

    on_a_new_loop(tools.open())
    (pid,) = tools.pids
    assert on_a_new_loop(tools.call(call("add", a=20, b=22))).content == "42"
    assert (await tools.call(call("add", a=1, b=2))).content == "3"
    on_a_new_loop(tools.close())
    assert not alive(pid)


async def test_a_server_that_fails_to_start_is_an_env_error(pids: Path) -> None:
    crash = [sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(2)"]
    tools = tools_of({"calc": stdio_settings(), "broken": {"command": crash}})
    with pytest.raises(MCPServerError) as raised:
        await tools.open()
    assert not isinstance(raised.value, MCPServerDownError)
    text = str(raised.value)
    assert "MCP server 'broken' (stdio: python" in text and "failed to start" in text
    assert "its stderr: boom" in text
    assert wait_gone(pids_in(pids)) == [] and live_pids() == []  # the good one closed too


async def test_a_command_not_found_says_so(pids: Path) -> None:
    tools = tools_of({"gone": {"command": ["/no/such/mcp-server"]}})
    with pytest.raises(MCPServerError) as raised:
        await tools.open()
    # said by the launcher, or by bwrap (`bwrap: execvp /no/such/mcp-server: No such file...`)
    assert re.search(r"/no/such/mcp-server'?: No such file or directory", str(raised.value))
    assert live_pids() == []


async def test_an_unreachable_url_names_the_server_never_its_secrets() -> None:
    url = f"http://127.0.0.1:9/mcp?token={SECRET}"
    tools = tools_of({"web": {"url": url, "headers": {"Authorization": SECRET}}})
    with pytest.raises(MCPServerDownError) as raised:  # eval starts no new episode then
        await tools.open()
    assert isinstance(raised.value, EnvUnavailableError)
    text = str(raised.value)
    assert "MCP server 'web' (http: http://127.0.0.1:9/mcp) failed to start" in text
    assert SECRET not in text


async def test_a_server_that_never_answers_at_start_is_bounded(pids: Path) -> None:
    mute = [sys.executable, "-c", "import time; time.sleep(600)"]
    tools = tools_of({"mute": {"command": mute, "connect_timeout_seconds": 1}})
    with pytest.raises(MCPServerError, match="did not start and list its tools within 1 s"):
        await tools.open()
    assert live_pids() == []


async def test_a_dropped_toolbox_closes_its_servers(pids: Path) -> None:
    tools = tools_of({"calc": stdio_settings()})
    await tools.open()
    (pid,) = tools.pids
    del tools
    gc.collect()
    assert wait_gone([pid]) == []


@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_no_server_outlives_this_process(pids: Path, tmp_path: Path, how: str, bwrap: str) -> None:
    """Open a session in a child process that then exits without closing (or is SIGKILLed):
    the server process dies with it (atexit; PR_SET_PDEATHSIG), and so does the child it
    started in a session of its own."""
    end = "os.kill(os.getpid(), signal.SIGKILL)" if how == "sigkill" else "sys.exit(0)"
    escaped = tmp_path / "escaped"
    escaped.mkdir()
    settings = stdio_settings(env={"MCP_TEST_ESCAPE": str(escaped)})
    code = f"""
import asyncio, json, os, signal, sys
from swift_gym.mcp import MCPTools
from swift_gym.mcp.servers import read_servers
tools = MCPTools(read_servers({json.dumps({"calc": settings})}))
asyncio.run(tools.open())
print(tools.pids[0], flush=True)
{end}
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    pid = int(done.stdout.split()[0])
    (child,) = pids_in(escaped)
    try:
        assert pids_in(pids) == [pid]
        assert wait_gone([pid, child]) == []
    finally:
        kill(child)
