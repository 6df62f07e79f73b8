"""A stdio server's process and everything it starts: started together, ended together.

Why a PID namespace. The server's own process group is not enough: a child that calls `setsid`
(a daemon, a browser a tool launches) leaves the group, and outlived `close()`. A PID namespace
holds every descendant whatever it does, and when its PID 1 dies the kernel SIGKILLs all of
them. bubblewrap makes one without privileges (unprivileged, in a user namespace that maps the
user to itself) and changes nothing else the server sees: `--dev-bind / /` gives it the same
files (devices and this machine's /proc included), and it keeps the network, the user, the
working directory and the environment. A cgroup would need root or a delegated subtree, and a
subreaper a process of ours that outlives every way we end, SIGKILL included.

How. `launcher -> bwrap (outside) -> the server, PID 1 of the namespace (--as-pid-1)`. The
launcher, our child, sets PR_SET_PDEATHSIG, checks we still live, and execs bwrap
(`--die-with-parent`: the server dies with bwrap, and bwrap with us). bwrap reads its options
from a memfd (`--args`), so the server's environment (`--setenv`: the operator's secrets) is in
no command line and in no process's environment but the server's. bwrap reports the server's
pid on `--info-fd` and holds it (`--block-fd`) until we have a pidfd of it, so the pid we kill
is never a recycled one. The server is PID 1 rather than a child of bwrap's own PID 1: when the
server exits, bwrap waits for the kernel to empty the namespace and reaps it before it exits
(bwrap's PID 1 would be left behind, a zombie for this machine's init to reap, once per
episode: a leak where that init is a program that does not reap, as in a container).

Ending: stdin closed, the grace to exit, then SIGKILL to the server through its pidfd; bwrap's
exit comes only after the kernel has killed the rest of the namespace, so when `end()` returns
nothing the server started runs.

What the server notices: its pids are the namespace's (`os.getpid()` is 1; `/proc` is the
machine's, so `/proc/self` is right and `/proc/<os.getpid()>` is not); as PID 1 it inherits
the orphans of its children (zombies until it exits, unless it reaps them) and a signal it
sends itself without a handler is ignored; and no-new-privileges (a setuid program such as sudo
gains nothing).

Without bwrap, or where the kernel refuses it a namespace, the server runs as it did before: in
a session and process group of its own, SIGKILLed whole at the end (a child that left the group
can outlive it), with one warning per process that says so. A server whose settings say
`"pid_namespace": false` runs that way on purpose, without the warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import shutil
import signal
import subprocess
import sys

from ..sandbox.child import Child, spawn
from ..sandbox.pipes import data_fd, reported_pid
from .servers import StdioServer

logger = logging.getLogger(__name__)

_LAUNCHER = (
    "import os,sys\n"
    "try:\n"
    " import ctypes; ctypes.CDLL(None).prctl(1, 9)\n"  # PR_SET_PDEATHSIG, SIGKILL (Linux)
    "except Exception: pass\n"
    "os.getppid() == int(sys.argv[1]) or os._exit(70)\n"  # the parent already died
    "try:\n"
    " os.execvp(sys.argv[2], sys.argv[2:])\n"
    "except OSError as e:\n"
    " print(f'cannot run {sys.argv[2]!r}: {e.strerror}', file=sys.stderr, flush=True)\n"
    " os._exit(127)\n"
)
_NAMESPACE = ("--unshare-pid", "--as-pid-1", "--die-with-parent", "--dev-bind", "/", "/")
_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow it unprivileged "
    "user namespaces"
)
_WAIT = 10.0
"""Seconds to wait for bwrap's report of the server's pid, or for bwrap to end once the server
was killed (both at once in practice; the bound is for a machine under heavy load)."""


@functools.lru_cache(maxsize=1)
def pid_namespaces() -> str | None:
    """The `bwrap` that gives stdio servers a PID namespace here, or None (logged once, with
    why: servers then run in a process group of their own)."""
    path = shutil.which("bwrap")
    if path is None:
        _refused("bubblewrap (bwrap) is not installed")
        return None
    probe = [path, *_NAMESPACE, "--", sys.executable, "-I", "-S", "-c", ""]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, env={})
    except (OSError, subprocess.TimeoutExpired) as error:
        _refused(f"{path} cannot run: {error}")
        return None
    if done.returncode != 0:
        said = done.stderr.strip()[-300:] or f"exit status {done.returncode}"
        _refused(f"{path} cannot make a PID namespace here ({said})")
        return None
    return path


def _refused(why: str) -> None:
    logger.warning(
        "MCP stdio servers run without a PID namespace of their own: %s. Each is still killed "
        "with its process group, but a process it starts in a session of its own (setsid, a "
        "daemon) can outlive it. To fix: %s.",
        why,
        _HINT,
    )
    return None


class ServerProcess:
    """A started server: `child` (our child, with the server's pipes: bwrap, or the server
    itself without a namespace), and in a namespace the server's pid and a pidfd of it."""

    def __init__(self, child: Child):
        self.child = child
        self.namespaced_pid: int | None = None
        self._pidfd: int | None = None

    @property
    def pid(self) -> int:
        """The server's own pid on this machine (for tests and diagnostics)."""
        return self.namespaced_pid or self.child.pid

    def kill_now(self) -> None:
        """SIGKILL the server and all it started, without waiting (atexit, a failed start). In
        a namespace bwrap is left to reap the server and exit (killed first, it would leave
        the server a zombie for this machine's init)."""
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        else:
            self._kill_group()

    def _kill_group(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.child.pid, signal.SIGKILL)
        self.child.kill()

    async def end(self, grace: float) -> None:
        """Close the server's stdin, give it `grace` seconds to exit, then kill it and all it
        started; returns once they are gone and our child is reaped."""
        with contextlib.suppress(Exception):
            self.child.stdin.close()
        await self._exit_within(grace)
        if self.child.returncode is None and self._pidfd is not None:
            self.kill_now()  # the kernel empties the namespace; then bwrap reaps it and exits
            await self._exit_within(_WAIT)
        if self._pidfd is None or self.child.returncode is None:
            self._kill_group()  # no namespace (what is left of its group), or a stuck bwrap
        await self.child.wait()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    async def _exit_within(self, seconds: float) -> None:
        if self.child.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.child.wait()), seconds)


async def start(spec: StdioServer, env: dict[str, str], read_limit: int) -> ServerProcess:
    """Start the server `spec` with the environment `env`, its stdio piped to the running loop:
    in a PID namespace of its own where bubblewrap can make one (`pid_namespaces`)."""
    bwrap = await asyncio.to_thread(pid_namespaces) if spec.pid_namespace else None
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(os.getpid())]
    if bwrap is None:
        child = await spawn(
            [*launcher, *spec.command], env=env, new_session=True, read_limit=read_limit,
            cwd=spec.cwd,
        )  # fmt: skip
        return ServerProcess(child)
    options = list(_NAMESPACE)
    for key, value in env.items():
        if "\0" in key or "\0" in value:
            raise ValueError(f"the environment variable {key[:64]!r} holds a NUL character")
        options += ["--setenv", key, value]
    options_text = b"".join(os.fsencode(option) + b"\0" for option in options)
    args = data_fd(options_text, "swift-gym-mcp-bwrap-args")
    info_read, info_write = os.pipe()
    hold_read, hold_write = os.pipe()
    passed = [args, info_write, hold_read]
    try:
        argv = [bwrap, "--args", str(args), "--info-fd", str(info_write)]
        argv += ["--block-fd", str(hold_read), "--", *spec.command]
        child = await spawn(
            [*launcher, *argv], env={}, pass_fds=passed, new_session=True,
            read_limit=read_limit, cwd=spec.cwd,
        )  # fmt: skip
    except BaseException:
        os.close(info_read)
        os.close(hold_write)
        raise
    finally:
        for fd in passed:
            os.close(fd)
    process = ServerProcess(child)
    try:
        with os.fdopen(hold_write, "wb", buffering=0) as hold:
            pid = await asyncio.wait_for(reported_pid(info_read), _WAIT)
            if pid is not None:  # None: bwrap failed (its stderr says why)
                with contextlib.suppress(OSError):  # held by bwrap: not a recycled pid
                    process._pidfd = os.pidfd_open(pid)
                    process.namespaced_pid = pid
            with contextlib.suppress(BrokenPipeError):  # bwrap already failed
                hold.write(b"go")
    except BaseException:
        process.kill_now()
        _reap_later(child)
        raise
    return process


_REAPING: set[asyncio.Future[int]] = set()


def _reap_later(child: Child) -> None:
    """Reap `child` when it exits, on the running loop (a start that was cancelled)."""
    waiting = asyncio.ensure_future(child.wait())
    _REAPING.add(waiting)
    waiting.add_done_callback(_REAPING.discard)
