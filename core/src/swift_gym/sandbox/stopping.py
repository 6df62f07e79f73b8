"""Stopping and resuming all of a sandbox's processes with signals, where no v2 freezer exists.

Between a session's calls nothing of the sandbox may run. A v2 freezer cgroup stops it all at
once (`cgroups.py`); elsewhere every process of the sandbox gets SIGSTOP, which no process can
catch or ignore, and which its PID 1 receives from us too (the kernel lets an ancestor namespace
send SIGSTOP and SIGKILL to a namespace's init); a stopped process still dies of SIGKILL. The
processes are listed by the sandbox's pids cgroup when it has one, else found as the tree below
its PID 1 (`/proc/PID/task/TID/children`: orphans are re-parented to that PID 1, so every
process of the namespace is there). A process that forks while they are stopped is found on the
next pass, and passes repeat until one finds nothing new: a stopped process cannot fork.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable

Lister = Callable[[], list[int]]

_PASSES = 64


def tree(init_pid: int) -> list[int]:
    """`init_pid` and every process below it, as this moment's /proc says."""
    found: list[int] = []
    todo = [init_pid]
    seen = set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        found.append(pid)
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for thread in threads:
            children = f"/proc/{pid}/task/{thread}/children"
            with contextlib.suppress(OSError, ValueError), open(children, "rb") as listed:
                todo.extend(int(child) for child in listed.read().split())
    return found


def stop(processes: Lister) -> None:
    """SIGSTOP every process `processes()` lists, until a pass finds none not yet sent one."""
    sent: set[int] = set()
    for _ in range(_PASSES):
        new = [pid for pid in processes() if pid not in sent]
        if not new:
            return
        for pid in new:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
            sent.add(pid)


def resume(processes: Lister) -> None:
    """SIGCONT every process `processes()` lists."""
    for pid in processes():
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGCONT)
