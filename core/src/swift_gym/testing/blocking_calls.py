"""Calls that block a thread, seen through Python's audit hooks: the `never_blocks` check.

An env that declares `never_blocks` is played on `swift-gym serve`'s own event loop, where
one blocking call stalls every session. Audit events name such calls exactly (a sleep, a file
opened, a socket connecting, a process started), so the check is a fact, not a timing: an env
that sleeps a microsecond fails it as surely as one that sleeps a minute. Computing for long
raises no event; the kit's `blocking` check measures that. Python 3.11 has no `time.sleep`
event (3.12 added it), so within a watch `time.sleep` itself is wrapped to raise one; a
`from time import sleep` made before the watch goes unseen there.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..deployment import deployment_of

BLOCKING_EVENTS = frozenset(
    {
        "time.sleep",
        "open",  # files (io.open, os.open, and io.open_code: a module imported late)
        "os.listdir",
        "os.scandir",
        "os.mkdir",
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.truncate",
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
        "socket.getnameinfo",
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
    }
)
"""Audit events (https://docs.python.org/3/library/audit_events.html) of calls that wait on
the system: files, sockets, processes, sleeping."""

_SHOWN_ARGUMENT = 80


class _Watch:
    def __init__(self) -> None:
        self.thread: int | None = None
        self.seen: list[str] = []


_watch = _Watch()
_installed = False
_lock = threading.Lock()


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event in BLOCKING_EVENTS and _watch.thread == threading.get_ident():
        detail = repr(args[0])[:_SHOWN_ARGUMENT] if args else ""
        _watch.seen.append(f"{event}({detail})")


@contextmanager
def blocking_calls() -> Iterator[list[str]]:
    """Within the block, the blocking calls this thread makes, as `event(first argument)`.

    The audit hook is added once per process (Python cannot remove one) and does nothing
    outside a block. One block at a time per process.
    """
    global _installed
    with _lock:
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True
        if _watch.thread is not None:
            raise RuntimeError("blocking_calls() is already watching a thread")
        _watch.thread, _watch.seen = threading.get_ident(), []
    seen = _watch.seen
    sleep = time.sleep
    if sys.version_info < (3, 12):
        time.sleep = _audited_sleep(sleep)
    try:
        yield seen
    finally:
        time.sleep = sleep
        _watch.thread = None


def _audited_sleep(sleep: Any) -> Any:
    def audited(seconds: float) -> None:
        sys.audit("time.sleep", seconds)
        sleep(seconds)

    return audited


def declares_never_blocks(env_class: type) -> bool:
    """Whether `env_class` declares `Deployment.never_blocks` (True itself, not merely
    truthy)."""
    return deployment_of(env_class).never_blocks is True
