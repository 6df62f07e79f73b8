"""A child process with asyncio pipes, reaped through a pidfd: no child watcher, no thread.

asyncio's own subprocesses on Python 3.10 and 3.11 are reaped by a thread per child
(`ThreadedChildWatcher`), which races with `subprocess`'s own reaping now and then and then
reports exit status 255 ("Unknown child process"). A sandbox's exit status says which limit
ended it, so here the child is started with `subprocess.Popen` (vfork, as asyncio would), its
pipes are attached to the loop, and its exit is awaited on a pidfd (Linux 5.3+) before this
module, its only reaper, collects it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from collections.abc import Sequence


class Child:
    """What the sandbox needs of a child: `stdin` (a StreamWriter), `stdout` and `stderr`
    (StreamReaders), `pid`, `returncode`, `wait()` and `kill()`."""

    def __init__(self, popen: subprocess.Popen[bytes], pidfd: int):
        self._popen = popen
        self._pidfd = pidfd
        self._exited: asyncio.Future[int] | None = None
        self.pid = popen.pid
        self.stdin: asyncio.StreamWriter
        self.stdout: asyncio.StreamReader
        self.stderr: asyncio.StreamReader

    @property
    def returncode(self) -> int | None:
        return self._popen.returncode

    async def wait(self) -> int:
        """The exit status, once the child has exited (negative: the signal that ended it)."""
        if self._popen.returncode is not None:
            return self._popen.returncode
        if self._exited is None:
            loop = asyncio.get_running_loop()
            self._exited = loop.create_future()
            loop.add_reader(self._pidfd, self._reap)
        return await asyncio.shield(self._exited)

    def _reap(self) -> None:
        assert self._exited is not None
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self._pidfd)
        code = self._popen.wait()  # it has exited: this only collects it
        with contextlib.suppress(OSError):
            os.close(self._pidfd)
        if not self._exited.done():
            self._exited.set_result(code)

    def kill(self) -> None:
        """SIGKILL the child itself (not what it started)."""
        if self._popen.returncode is None:
            with contextlib.suppress(OSError):
                self._popen.kill()


async def spawn(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    pass_fds: Sequence[int] = (),
    new_session: bool = False,
    read_limit: int = 65_536,
    cwd: str | None = None,
) -> Child:
    """Start `argv` (in `cwd`) with stdin, stdout and stderr piped to the running loop."""
    loop = asyncio.get_running_loop()
    popen = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        pass_fds=tuple(pass_fds),
        start_new_session=new_session,
        cwd=cwd,
    )
    assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
    child = Child(popen, os.pidfd_open(popen.pid))
    child.stdout = await _reader(loop, popen.stdout, read_limit)
    child.stderr = await _reader(loop, popen.stderr, read_limit)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.streams.FlowControlMixin(loop=loop), popen.stdin
    )
    child.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
    return child


async def _reader(
    loop: asyncio.AbstractEventLoop, pipe: object, limit: int
) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
    return reader
