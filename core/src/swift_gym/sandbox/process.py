"""Starting a sandbox process, and killing its whole tree whatever state it is in.

How the tree dies. bubblewrap runs as our child and starts the code's interpreter as PID 1 of a
new PID namespace (`--as-pid-1`: no helper process of bubblewrap's inside). When a PID
namespace's PID 1 dies, the kernel SIGKILLs every process in it (daemons, orphans, stopped or
forking ones included): none can leave the namespace. So `kill()` sends SIGKILL to that PID 1
(through a pidfd, so a recycled PID is never hit) and waits for it to exit, which happens after
the rest of the namespace is gone; bubblewrap then reaps it and exits, and we reap bubblewrap.
If this process dies first, even by SIGKILL, `--die-with-parent` (PR_SET_PDEATHSIG) kills
bubblewrap and PID 1 in turn; an `atexit` hook kills the ones still open at a normal exit,
also those of sessions dropped without `close()`. The code runs in a new session and PID
namespace: no signal to our process group reaches it, and it cannot signal us, since our PIDs
do not exist there.

bubblewrap itself is started with an empty environment, and the code with four variables, so
no `/proc/*/environ` inside holds a secret of ours.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any

from ..errors import SandboxUnavailableError
from . import cgroups, stopping
from .availability import bubblewrap
from .bounds import bounds
from .cgroups import SandboxCgroup
from .child import Child, spawn
from .command import ENV, INSIDE, WORK, bwrap_argv, python_argv
from .limits import SandboxLimits
from .pipes import data_fd, read_to_end, readable, reported_pid
from .seccomp import program, supported

_LIVE: set[SandboxProcess] = set()
"""Every sandbox not yet killed, held here so that atexit finds those nobody closed."""
_VFORK_WITH_SETSID = sys.version_info >= (3, 12)
"""bwrap in a session of its own, so a terminal's Ctrl-C (sent to our process group) does not
end the sandboxes of episodes still finishing. Before Python 3.12 that costs `subprocess` its
vfork (a fork of the whole process: 10 ms of a 40 ms run), so there bwrap stays in our group and
dies with a Ctrl-C. The code itself is always in a new session (`--new-session`)."""
_READ = 65_536


class SandboxProcess:
    """One running sandbox: its pipes, `pause()`/`resume()` of all it runs, and `kill()` for its
    whole tree (and its cgroups, when it has them)."""

    def __init__(self, process: Child, init_pid: int | None, group: SandboxCgroup | None = None):
        self.process = process
        self.group = group
        self.init_pid: int | None = None
        self.out_of_memory = False
        """Whether the memory cgroup's limit killed a task of it (known once it is killed)."""
        self._pidfd: int | None = None
        self.attach(init_pid)
        _LIVE.add(self)

    def attach(self, init_pid: int | None) -> None:
        """Know the sandbox's PID 1, as bubblewrap reported it (a pidfd holds it from now on)."""
        self.init_pid = init_pid
        if init_pid is not None and hasattr(os, "pidfd_open"):
            with contextlib.suppress(OSError):
                self._pidfd = os.pidfd_open(init_pid)

    @property
    def pid(self) -> int:
        return self.process.pid

    def pause(self) -> None:
        """Stop every task of the sandbox (between a session's calls): its v2 freezer, else
        SIGSTOP of each of its processes."""
        if self.group is not None and self.group.freeze():
            return
        if self.init_pid is not None:
            stopping.stop(self._processes)

    def resume(self) -> None:
        if self.group is not None and self.group.thaw():
            return
        if self.init_pid is not None:
            stopping.resume(self._processes)

    def _processes(self) -> list[int]:
        if self.group is not None:
            return self.group.processes()
        return stopping.tree(self.init_pid) if self.init_pid is not None else []

    def kill_now(self) -> None:
        """SIGKILL the sandbox's PID 1, so the kernel kills all it holds; without waiting. For
        atexit and for paths that cannot await. bwrap itself is left to reap it and exit (killed
        first, it would leave PID 1 a zombie for the host's init to reap)."""
        self._kill_init()
        if self.group is not None:
            self.group.kill_all()
        if self.init_pid is None and self.process.returncode is None:
            with contextlib.suppress(OSError):  # bwrap failed early, or unsafe_local
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.kill()

    def _kill_init(self) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        elif self.init_pid is not None and self.process.returncode is None:
            with contextlib.suppress(OSError):
                os.kill(self.init_pid, signal.SIGKILL)

    async def kill(self) -> None:
        """Kill the whole tree and wait until it is gone, then remove its cgroups. Safe to call
        more than once.

        PID 1 first, and wait for it: its exit is where the kernel kills and reaps the rest of
        the namespace. bwrap then exits by itself, having reaped it.
        """
        self.kill_now()
        if self._pidfd is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(readable(self._pidfd), 10)
        if self.process.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.process.wait()), 5)
        if self.process.returncode is None:
            with contextlib.suppress(OSError):
                self.process.kill()
        await self.process.wait()
        self.process.stdin.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        if self.group is not None:
            group, self.group = self.group, None
            self.out_of_memory = group.out_of_memory()
            await group.remove()
        _LIVE.discard(self)


async def kill_and_drain(
    sandbox: SandboxProcess | None, draining: asyncio.Task[None] | None
) -> None:
    """End a session's or a workspace's sandbox (its whole tree), then give the task draining
    its stderr a second to take what was left in the pipe."""
    if sandbox is not None:
        await sandbox.kill()
    if draining is not None:
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(draining, 1)


async def start(
    mode: str, limits: SandboxLimits, read_limit: int = _READ, extra: Sequence[str] = ()
) -> SandboxProcess:
    """Start the inside program in `mode` ("run", "repl" or "workspace") under `limits`'
    backend, its stdin, stdout and stderr piped (`read_limit`: the longest line its stdout may
    send; `extra`: more of bubblewrap's options, `command.bwrap_argv`'s).

    Returns once the sandbox's interpreter has set its limits and is about to read code.
    Raises SandboxUnavailableError when bubblewrap cannot run, or could not start this sandbox
    (then no code was given to it, and the error is the operator's to fix)."""
    if limits.backend == "unsafe_local":
        process = await spawn(
            python_argv(mode, limits, str(INSIDE.parent)),
            env=dict(ENV, HOME=os.getcwd(), TMPDIR=os.getcwd()),
            new_session=True,
            read_limit=read_limit,
        )
        return SandboxProcess(process, None)
    bwrap = bubblewrap()
    plan = bounds()
    group = SandboxCgroup(plan.cgroups, limits) if plan.cgroups is not None else None
    info_read, info_write = os.pipe()
    ready_read, ready_write = os.pipe()
    seccomp = program(plan.refuse_memory, plan.tasks) if supported() else None
    seccomp_fd = data_fd(seccomp, "swift-gym-seccomp") if seccomp is not None else None
    passed = [info_write, ready_write]
    passed += [seccomp_fd] if seccomp_fd is not None else []
    try:
        argv = bwrap_argv(
            bwrap.path,
            mode,
            limits,
            info_write,
            seccomp_fd,
            bwrap.disable_userns,
            ready_fd=ready_write,
            extra=extra,
        )
        process = await spawn(
            argv, env={}, pass_fds=passed, new_session=_VFORK_WITH_SETSID, read_limit=read_limit
        )
    except BaseException:
        for fd in (info_read, ready_read):
            os.close(fd)
        if group is not None:
            group.remove_now()
        raise
    finally:
        for fd in passed:
            os.close(fd)
    sandbox = SandboxProcess(process, None, group)
    ready_unread = True
    try:
        init_pid = await reported_pid(info_read)
        sandbox.attach(init_pid)
        joining = None
        if init_pid is not None and group is not None:  # while its interpreter starts
            joining = asyncio.get_running_loop().run_in_executor(None, _join, group, init_pid)
        ready_unread = False  # read_to_end closes it, however it ends
        ready = await read_to_end(ready_read)
        if joining is not None:
            await joining
        if ready != b"ready":
            raise SandboxUnavailableError(await _why_not_started(process))
    except BaseException:
        if ready_unread:
            os.close(ready_read)
        await sandbox.kill()
        raise
    return sandbox


def _join(group: SandboxCgroup, pid: int) -> None:
    """Move the sandbox into its groups: in a worker thread, since it may wait (`add`)."""
    try:
        group.add(pid)
    except ProcessLookupError:
        pass  # bwrap failed inside already: the ready pipe's end says so, with its words
    except OSError as error:
        raise SandboxUnavailableError(
            f"could not move the sandbox into its cgroup ({error}); "
            f"{cgroups.VARIABLE}=off runs sandboxes without cgroups"
        ) from None


async def _why_not_started(process: Child) -> str:
    """What bubblewrap (or the interpreter, before any code) said when the sandbox did not start."""
    code = None
    with contextlib.suppress(asyncio.TimeoutError):
        code = await asyncio.wait_for(asyncio.shield(process.wait()), 5)
    said = b""
    with contextlib.suppress(asyncio.TimeoutError, OSError):
        said = await asyncio.wait_for(process.stderr.read(4096), 1)
    text = said.decode("utf-8", "replace").strip()[-600:] or "nothing on stderr"
    return (
        f"the sandbox did not start (bubblewrap's exit status {code}): {text}. Check that "
        "bubblewrap works here (`swift-gym doctor`)."
    )


def live() -> list[Any]:
    """The sandboxes not yet killed (for tests and for the exit hook)."""
    return list(_LIVE)


@atexit.register
def _kill_all() -> None:
    """Kill the sandboxes still open, and remove their cgroups once they are gone (for up to a
    second: a group whose tasks take longer is swept by the next process that starts one)."""
    sandboxes = list(_LIVE)
    for sandbox in sandboxes:
        sandbox.kill_now()
    groups = [sandbox.group for sandbox in sandboxes if sandbox.group is not None]
    deadline = time.monotonic() + 1
    while groups and time.monotonic() < deadline:
        time.sleep(0.01)
        groups = [group for group in groups if not group.remove_now()]


__all__ = ["WORK", "SandboxProcess", "live", "start"]
