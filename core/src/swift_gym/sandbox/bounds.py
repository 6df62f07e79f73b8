"""How this host bounds a sandbox: with cgroups where it can make them, else by refusing.

Two modes, chosen once per process (`bounds()`), told by `swift-gym doctor` and docs/sandbox.md:

- `cgroup`: each sandbox has a memory group (`memory_bytes` + `work_bytes` for all its tasks,
  shared memory, memory files and `/work` included) and a pids group (`max_processes` tasks,
  threads included, also as root); the freezer stops it between a session's calls (SIGSTOP of
  its tree where there is no freezer). Its memory and tasks are bounded whatever it calls.
- `seccomp`: no group can be made (no write access, no delegated subtree, or
  `SWIFT_GYM_SANDBOX_CGROUPS=off`). What no rlimit counts is refused instead (SysV shared memory
  and message queues, memory files); RLIMIT_NPROC bounds tasks, threads included, except for the
  host's root, who may then start none (no thread, no process); sessions stop with SIGSTOP.

In both, the seccomp filter refuses the kernel's keyrings, and every capability is dropped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import SandboxUnavailableError
from . import cgroups, seccomp


@dataclass(frozen=True)
class Bounds:
    """What bounds each sandbox started by this process."""

    cgroups: cgroups.CgroupHost | None
    why_not_cgroups: str
    root: bool

    @property
    def mode(self) -> str:
        return "cgroup" if self.cgroups is not None else "seccomp"

    @property
    def refuse_memory(self) -> bool:
        """SysV shared memory, message queues and memory files: refused where no group counts
        their pages."""
        return self.cgroups is None

    @property
    def tasks(self) -> seccomp.Tasks:
        return "none" if self.cgroups is None and self.root else "allowed"

    def refused(self) -> list[str]:
        return seccomp.refused(self.refuse_memory, self.tasks)

    def enforcement(self) -> dict[str, str]:
        """Each limit that depends on the mode, and what enforces it here."""
        if self.cgroups is not None:
            tasks = "a pids cgroup (threads count)"
            memory = (
                "a memory cgroup of memory_bytes + work_bytes for the whole sandbox, and "
                "RLIMIT_AS per process"
            )
            between = "its freezer cgroup" if self.cgroups.freezer else "SIGSTOP of each process"
        else:
            tasks = (
                "none may start: the seccomp filter refuses threads and processes"
                if self.root
                else "RLIMIT_NPROC (threads count)"
            )
            memory = "RLIMIT_AS per process; shared memory and memory files refused"
            between = "SIGSTOP of each process"
        return {
            "memory_bytes": memory,
            "max_processes": tasks,
            "between a session's calls": between,
        }

    def describe(self) -> str:
        if self.cgroups is not None:
            return f"cgroup: {self.cgroups.describe()}"
        return f"seccomp: no cgroups ({self.why_not_cgroups})"


def bounds() -> Bounds:
    """This process's mode. Raises SandboxUnavailableError where nothing can bound a sandbox:
    `SWIFT_GYM_SANDBOX_CGROUPS=required` without cgroups, or no cgroups and no seccomp filter for
    this machine's architecture."""
    found = cgroups.host()
    if found.host is None and not seccomp.supported():
        raise SandboxUnavailableError(
            f"the sandbox cannot bound memory and tasks here: no cgroups ({found.reason}) and "
            "no seccomp filter for this architecture (x86_64 and aarch64 have one)"
        )
    return Bounds(found.host, found.reason, os.geteuid() == 0)
