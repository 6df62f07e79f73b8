"""File descriptors handed to bubblewrap and read back from it, on the event loop, no thread.

Both users of bubblewrap (the sandbox, and MCP stdio servers in a PID namespace of their own)
give it data through a memfd (`data_fd`: its seccomp filter, its options) and learn the pid of
what it started from `--info-fd` (`reported_pid`): one copy of each here.
"""

from __future__ import annotations

import asyncio
import json
import os


def data_fd(data: bytes, name: str) -> int:
    """A file descriptor to read `data` from (a memfd: no file on disk, no pipe to fill)."""
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


async def readable(fd: int) -> None:
    """Return once `fd` polls readable (data, its end, or a pidfd's process gone)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        loop.remove_reader(fd)


async def read_to_end(fd: int, cap: int = 65_536) -> bytes:
    """All that is written on pipe `fd` until its writers close it (at most `cap` bytes kept);
    `fd` is closed however this ends."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    done: asyncio.Future[None] = loop.create_future()
    chunks: list[bytes] = []

    def ready() -> None:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk and sum(map(len, chunks)) < cap:
            chunks.append(chunk)
        elif not done.done():
            done.set_result(None)

    loop.add_reader(fd, ready)
    try:
        await done
    finally:
        loop.remove_reader(fd)
        os.close(fd)
    return b"".join(chunks)


async def reported_pid(fd: int) -> int | None:
    """The pid bubblewrap reports on `--info-fd` ("child-pid", JSON; it closes the pipe then),
    or None when it ended without one. Closes `fd`."""
    text = (await read_to_end(fd)).decode("utf-8", "replace")
    try:
        pid = json.loads(text).get("child-pid") if text.strip() else None
    except (ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) and pid > 0 else None
