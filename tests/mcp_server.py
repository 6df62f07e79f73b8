"""A real MCP server for the tests (the SDK's FastMCP), over stdio or streamable HTTP.

`python mcp_server.py stdio` or `python mcp_server.py http PORT` (on 127.0.0.1). At start it
writes its pid to a new file in `$MCP_TEST_PIDS` (a directory), if set, so a test can check the
process is gone: its pid as this machine sees it (`/proc/self`), also in a PID namespace of its
own. With `$MCP_TEST_ESCAPE` (a directory) it first starts a child in a session of its own (out
of its process group, as a daemon) that writes its pid there and sleeps.

Its tools: `add`, `echo` (offered by both kinds: a name clash), `secret` (a value from its env,
to see the operator's `env` arrive), `big` (a result of N characters), `fail` (a tool error),
`picture` (an image); and, unless `$MCP_TEST_TAME` is set (a random policy calls every tool),
`header` (the request's Authorization header, to see the operator's `headers` arrive), `leak`
(an error that tells its secret env value and the request's Authorization header), `nap`
(sleeps, answering other calls meanwhile), `hang` (sleeps holding the server's event loop: it
answers nothing meanwhile) and `die` (the process exits mid-call). `$MCP_TEST_ONLY`, a comma
list, keeps only those tools.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp.server.fastmcp import Context, FastMCP, Image

kind = sys.argv[1]
port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
server = FastMCP(f"test-{kind}", host="127.0.0.1", port=port, log_level="WARNING")
ESCAPED = """import os, pathlib, sys, time
pid = os.readlink("/proc/self")
pathlib.Path(sys.argv[1], pid).write_text(pid)
time.sleep(600)"""


def own_pid() -> int:
    """This process's pid on the machine (`os.getpid()` is the namespace's, in a PID namespace;
    `/proc` is the machine's)."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


escape = os.environ.get("MCP_TEST_ESCAPE")
if escape:  # a child that leaves the server's process group, as a daemon does
    subprocess.Popen(
        [sys.executable, "-c", ESCAPED, escape],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not os.listdir(escape) and time.monotonic() < deadline:
        time.sleep(0.01)
pids = os.environ.get("MCP_TEST_PIDS")
if pids:
    Path(pids, f"{kind}-{own_pid()}").write_text(str(own_pid()))


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Say `text` back, with the server's kind."""
    return f"{kind}: {text}"


@server.tool()
def secret() -> str:
    """A value from the server's environment."""
    return os.environ.get("MCP_TEST_SECRET", "(unset)")


def header(ctx: Context) -> str:
    """The Authorization header of the HTTP request (over HTTP only)."""
    request = ctx.request_context.request
    return request.headers.get("authorization", "(none)") if request is not None else "(stdio)"


@server.tool()
def big(size: int) -> str:
    """A result of `size` characters."""
    return "x" * size


@server.tool()
def fail(why: str) -> str:
    """Raise an error."""
    raise ValueError(f"failed on purpose: {why}")


async def nap(seconds: float) -> str:
    """Sleep without holding the server's event loop (its other tools still answer)."""
    await anyio.sleep(seconds)
    return "rested"


def leak(ctx: Context) -> str:
    """Fail with an error that tells the server's secrets (a careless server's traceback)."""
    request = ctx.request_context.request
    header = request.headers.get("authorization", "") if request is not None else ""
    raise ValueError(f"cannot log in with {os.environ.get('MCP_TEST_SECRET')!r} or {header!r}")


def die() -> str:
    """Exit the server's process mid-call."""
    os._exit(3)


def hang(seconds: float) -> str:
    """Sleep, holding the server's event loop."""
    time.sleep(seconds)
    return "woke"


if not os.environ.get("MCP_TEST_TAME"):  # a random policy would call them
    server.tool()(header)
    server.tool()(leak)
    server.tool()(nap)
    server.tool()(die)
    server.tool()(hang)


@server.tool()
def picture() -> Image:
    """A tiny image."""
    return Image(data=b"\x89PNG\r\n\x1a\n", format="png")


only = os.environ.get("MCP_TEST_ONLY")  # a comma list: offer only these (short prompts)
if only:
    for tool in server._tool_manager.list_tools():
        if tool.name not in only.split(","):
            server.remove_tool(tool.name)

if kind == "stdio":
    server.run("stdio")
else:
    server.run("streamable-http")
