"""`swift-gym serve`: any installed env over the OpenEnv protocol, for clients on other machines.

Only the options live here; the server is the `swift_gym.serving` library. The token is read
from an environment variable (`--token-env VAR`), never from the command line, where other
users of the machine could read it in the process list.
"""

from __future__ import annotations

import logging
import os
import sys

import click

from ..install_hints import extra_hint
from ..serving.options import DEFAULT_PORT
from .console import stderr
from .errors import CommandError
from .options import parse_overrides, set_option

EXTRA_HINT = f"swift-gym serve needs its extra: {extra_hint('serve')}"


@click.command()
@click.argument("name", required=False)
@set_option
@click.option(
    "--allow",
    multiple=True,
    metavar="NAME",
    help="Envs a session's reset may name besides NAME (repeatable); an env that reaches the "
    "network (openenv) or starts the operator's processes and reaches its hosts (mcp_tools) is "
    "served only if named here [default: NAME only; without NAME, any installed env but "
    "those].",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="0: any free.",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    help="Sessions (connections with an env) at once; more are told CAPACITY_REACHED.",
)
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=600.0,
    show_default=True,
    help="Close a session after this many seconds without a frame.",
)
@click.option(
    "--step-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds a reset (with building the env) or a step may take.",
)
@click.option(
    "--handshake-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Close a connection silent this many seconds before its WebSocket handshake.",
)
@click.option(
    "--max-message-bytes",
    type=click.IntRange(min=1024),
    default=1 << 20,
    show_default=True,
    help="Largest frame a client may send.",
)
@click.option(
    "--isolation",
    type=click.Choice(["auto", "thread", "shared", "inline"]),
    default="auto",
    show_default=True,
    help="Where envs run: auto (the server's own loop for envs that declare they never block, "
    "a thread per session for the rest), or for every env: a thread per session (an env that "
    "blocks holds only its own), a few shared loops (it holds the sessions on its loop), or the "
    "server's own loop (fastest; only for envs that never block).",
)
@click.option(
    "--no-oracle",
    is_flag=True,
    help="Answer no client's request for an env's oracle reply (eval --policy oracle through "
    "this server); by default an env that defines oracle_reply() has it served.",
)
@click.option(
    "--token-env",
    metavar="VAR",
    help="Require 'Authorization: Bearer <token>', the token read from environment variable VAR.",
)
def serve(
    name: str | None,
    overrides: tuple[str, ...],
    allow: tuple[str, ...],
    host: str,
    port: int,
    max_sessions: int,
    idle_timeout: float,
    step_timeout: float,
    handshake_timeout: float,
    max_message_bytes: int,
    isolation: str,
    no_oracle: bool,
    token_env: str | None,
) -> None:
    """Serve env NAME (and the --allow envs) over the OpenEnv WebSocket protocol.

    Without NAME and --allow: any installed env but those that reach the network (openenv) or
    start the operator's processes and reach its hosts (mcp_tools): --allow names each of
    those to serve it, NAME included.

    Each WebSocket connection to /ws is one session: a reset's data may carry an env_config
    (checked as a dataset row) and a seed; NAME and --set give the defaults. A step's action
    is {"message": reply}, with "tool_calls" (OpenAI's shape) in an env that offers tools,
    whose reset observation then carries "tools" and each step's "tool_results". Runs until
    Ctrl-C or SIGTERM.
    """
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
        import websockets  # noqa: F401
    except ImportError:
        raise CommandError(EXTRA_HINT) from None
    from ..serving import ServeOptions
    from ..serving import serve as run_server

    defaults = parse_overrides(overrides, {"name": "the env is the NAME argument"})
    if defaults and name is None:
        raise CommandError("--set sets fields of the default env: give NAME too")
    token = None
    if token_env is not None:
        token = os.environ.get(token_env, "").strip()
        if not token:
            raise CommandError(f"--token-env {token_env}: the variable is unset or empty")
    options = ServeOptions(
        env=name,
        defaults=defaults,
        allow=allow,
        host=host,
        port=port,
        max_sessions=max_sessions,
        idle_timeout=idle_timeout,
        step_timeout=step_timeout,
        handshake_timeout=handshake_timeout,
        max_message_bytes=max_message_bytes,
        token=token,
        isolation=isolation,
        oracle=not no_oracle,
    )
    if not options.loopback and token is None:
        stderr().print(
            f"warning: listening on {host} without a token: anyone who can reach this machine "
            "can start envs here (add --token-env VAR)",
            style="yellow",
            markup=False,
        )

    def ready(url: str) -> None:
        served = sorted({*allow, *([name] if name else [])})
        what = ", ".join(served) or "any installed env (but those that need --allow)"
        stderr().print(
            f"swift-gym serve: {what} on {url} (WebSocket {url.replace('http', 'ws', 1)}/ws), "
            f"up to {max_sessions} sessions, isolation {isolation}; Ctrl-C stops",
            markup=False,
            highlight=False,
        )

    _log_to_stderr()
    try:
        run_server(options, on_ready=ready)
    except OSError as error:
        raise CommandError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


def _log_to_stderr() -> None:
    """The server's log (sessions opened and closed, errors) on stderr, with the time."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    log = logging.getLogger("swift_gym.serving")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
