"""Control groups for sandboxes: all of a sandbox's memory and tasks bounded, frozen between calls.

rlimits bound each process on its own, and not everything: RLIMIT_AS counts mappings, not SysV
shared memory kept after `shmdt` nor a memfd filled with `write()`, and RLIMIT_NPROC is never
enforced for the host's root. A memory cgroup counts every page the sandbox's tasks own (shared
memory, memfds and `/work`'s tmpfs included) and a pids cgroup every task (threads included),
whoever runs it. So each sandbox gets its own groups, where the host lets us make them:

- cgroup v1 (memory and pids hierarchies writable, as root in most containers): a group per
  sandbox in each, under a `swift-gym` group beneath this process's own (so the host's limits on
  us still hold). v1's freezer is not used: a task it froze ignores SIGKILL until thawed, so a
  session frozen when its owner is SIGKILLed would stay, frozen, for good. Sessions are stopped
  with SIGSTOP instead (`stopping.py`), of the tasks the pids group lists;
- cgroup v2 with the memory and pids controllers enabled for the children of this process's
  group (root, or a subtree delegated to the user): the groups go in a `swift-gym` group beneath
  it, with `cgroup.freeze` (v2's frozen tasks still die of SIGKILL) and `cgroup.kill`.

Nothing else is ever written: only groups made here, named `swift-gym/<pid>-<n>`, removed when
their sandbox ends; groups a crashed process left are swept at the first use (those whose owner
is gone and which are empty). Where no group can be made, `host()` says why and the sandbox
falls back to refusing what it cannot bound (`bounds.py`). `SWIFT_GYM_SANDBOX_CGROUPS` is the
operator's: `auto` (the default), `off` (never use them) or `required` (fail where there are
none).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import SandboxUnavailableError
from .limits import SandboxLimits

VARIABLE = "SWIFT_GYM_SANDBOX_CGROUPS"
CHOICES = ("auto", "off", "required")
GROUP = "swift-gym"
_V1_NEEDED = ("memory", "pids")
_counter = itertools.count()


@dataclass(frozen=True)
class CgroupHost:
    """Where this process can make sandbox groups: `version` 1 or 2, and per controller (v1) or
    for all (v2, key "") the parent directory its groups go in."""

    version: int
    parents: dict[str, Path]

    @property
    def freezer(self) -> bool:
        return self.version == 2

    def describe(self) -> str:
        if self.version == 2:
            return f"cgroup v2 under {self.parents['']}"
        where = ", ".join(f"{name} under {path}" for name, path in sorted(self.parents.items()))
        return f"cgroup v1 ({where})"


@dataclass(frozen=True)
class HostCgroups:
    """The verdict: `host` when groups can be made here, else `reason` says why not."""

    host: CgroupHost | None
    reason: str


def choice() -> str:
    """The operator's `SWIFT_GYM_SANDBOX_CGROUPS` (ValueError naming it when not a choice)."""
    raw = os.environ.get(VARIABLE, "").strip().lower() or "auto"
    if raw not in CHOICES:
        raise ValueError(f"{VARIABLE} must be one of {', '.join(CHOICES)}; got {raw[:40]!r}")
    return raw


def host() -> HostCgroups:
    """Whether sandboxes get cgroups here (looked up once per process and setting)."""
    return _host(choice())


@functools.lru_cache(maxsize=4)
def _host(chosen: str) -> HostCgroups:
    if chosen == "off":
        return HostCgroups(None, f"{VARIABLE}=off")
    found = _find()
    if found.host is None and chosen == "required":
        raise SandboxUnavailableError(
            f"{VARIABLE}=required, but sandboxes cannot get cgroups here: {found.reason}"
        )
    return found


def _find(mountinfo: str = "/proc/self/mountinfo", own: str = "/proc/self/cgroup") -> HostCgroups:
    try:
        mounts = Path(mountinfo).read_text()
        groups = Path(own).read_text()
    except OSError as error:
        return HostCgroups(None, f"cannot read this process's cgroups ({error})")
    v1, v2 = _mounts(mounts)
    paths = _own_paths(groups)
    if all(name in v1 for name in _V1_NEEDED):
        return _v1_host(v1, paths)
    if v2 is not None:
        return _v2_host(v2, paths.get("", "/"))
    return HostCgroups(None, "no cgroup v1 memory and pids hierarchies, and no cgroup v2 mount")


def _mounts(mountinfo: str) -> tuple[dict[str, tuple[str, str]], tuple[str, str] | None]:
    """(v1 controller: (mount root, mount point)), and v2's (mount root, mount point)."""
    v1: dict[str, tuple[str, str]] = {}
    v2 = None
    for line in mountinfo.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        if len(after) < 3:
            continue
        kind, options = after[0], after[2].split(",")
        root, point = fields[3], fields[4]
        if kind == "cgroup2" and v2 is None:
            v2 = (root, point)
        elif kind == "cgroup":
            for name in options:
                if name in _V1_NEEDED:
                    v1.setdefault(name, (root, point))
    return v1, v2


def _own_paths(text: str) -> dict[str, str]:
    """This process's group per v1 controller, and v2's under the key ""."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        names = parts[1].split(",") if parts[1] else [""]
        for name in names:
            paths[name] = parts[2]
    return paths


def _under(mount: tuple[str, str], path: str) -> Path:
    """The directory of group `path` (as /proc/self/cgroup says it) in a mount of `root`."""
    root, point = mount
    relative = path
    if root != "/" and (path == root or path.startswith(root.rstrip("/") + "/")):
        relative = path[len(root) :]
    candidate = Path(point, relative.lstrip("/"))
    return candidate if candidate.is_dir() else Path(point)


def _v1_host(v1: dict[str, tuple[str, str]], paths: dict[str, str]) -> HostCgroups:
    parents = {}
    for name in _V1_NEEDED:
        parent = _under(v1[name], paths.get(name, "/")) / GROUP
        problem = _usable(parent, "tasks")
        if problem:
            return HostCgroups(None, f"cgroup v1 {name}: {problem}")
        parents[name] = parent
    return HostCgroups(CgroupHost(1, parents), "")


def _v2_host(mount: tuple[str, str], path: str) -> HostCgroups:
    own = _under(mount, path)
    try:
        enabled = (own / "cgroup.subtree_control").read_text().split()
    except OSError as error:
        return HostCgroups(None, f"cgroup v2: cannot read {own}/cgroup.subtree_control ({error})")
    missing = [name for name in _V1_NEEDED if name not in enabled]
    if missing:
        return HostCgroups(
            None,
            f"cgroup v2: the {' and '.join(missing)} controller is not enabled for the children "
            f"of {own} (run swift-gym in a child group of a subtree delegated with them, e.g. "
            "systemd-run --user -p Delegate=yes)",
        )
    parent = own / GROUP
    problem = _usable(parent, "cgroup.procs")
    if problem:
        return HostCgroups(None, f"cgroup v2: {problem}")
    try:
        (parent / "cgroup.subtree_control").write_text("+memory +pids")
    except OSError as error:
        return HostCgroups(None, f"cgroup v2: cannot enable memory and pids in {parent} ({error})")
    return HostCgroups(CgroupHost(2, {"": parent}), "")


def _usable(parent: Path, check: str) -> str:
    """ "" when `parent` exists (made now if need be) and we may make groups in it."""
    try:
        parent.mkdir(exist_ok=True)
        probe = parent / f"probe-{os.getpid()}-{next(_counter)}"
        probe.mkdir()
        ok = (probe / check).exists()
        probe.rmdir()
    except OSError as error:
        return f"cannot make groups in {parent} ({error.strerror or error})"
    if not ok:
        return f"{parent} is not a cgroup directory"
    _sweep(parent)
    return ""


def _sweep(parent: Path) -> None:
    """Remove the empty groups of processes that are gone (a crash left them)."""
    with contextlib.suppress(OSError):
        for group in parent.iterdir():
            owner = group.name.split("-", 1)[0]
            if group.is_dir() and owner.isdigit() and not Path(f"/proc/{owner}").exists():
                with contextlib.suppress(OSError):
                    group.rmdir()


class SandboxCgroup:
    """One sandbox's groups: made with its limits, its PID 1 added before any code runs."""

    def __init__(self, host: CgroupHost, limits: SandboxLimits):
        self.host = host
        name = f"{os.getpid()}-{next(_counter)}"
        self.dirs = {controller: parent / name for controller, parent in host.parents.items()}
        made: list[Path] = []
        try:
            for directory in self.dirs.values():
                directory.mkdir()
                made.append(directory)
            self._limit(limits)
        except OSError as error:
            for directory in reversed(made):
                with contextlib.suppress(OSError):
                    directory.rmdir()
            raise SandboxUnavailableError(
                f"could not make the sandbox's cgroup in {host.describe()}: {error}"
            ) from None
        self._freeze_fd: int | None = None

    def _limit(self, limits: SandboxLimits) -> None:
        memory = limits.memory_bytes + limits.work_bytes
        if self.host.version == 1:
            _write(self.dirs["memory"] / "memory.limit_in_bytes", memory)
            swap = self.dirs["memory"] / "memory.memsw.limit_in_bytes"
            if swap.exists():
                _write(swap, memory)
            _write(self.dirs["pids"] / "pids.max", limits.max_processes)
        else:
            group = self.dirs[""]
            _write(group / "memory.max", memory)
            swap = group / "memory.swap.max"
            if swap.exists():
                _write(swap, 0)
            _write(group / "pids.max", limits.max_processes)

    def add(self, pid: int) -> None:
        """Move `pid` (the sandbox's PID 1) into its groups.

        Slow on cgroup v1 (a task's first move waits for an RCU grace period, 10 to 20 ms here,
        and holds every fork and exit of the machine meanwhile): the host does it while the
        sandbox's interpreter starts, before any code reaches it."""
        for directory in self.dirs.values():
            _write(directory / "cgroup.procs", pid)

    def processes(self) -> list[int]:
        """The sandbox's processes, as its group lists them now."""
        directory = self.dirs["pids"] if self.host.version == 1 else self.dirs[""]
        try:
            return [int(pid) for pid in (directory / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def _freezer_file(self) -> int | None:
        if self._freeze_fd is None and self.host.freezer:
            path = self.dirs[""] / "cgroup.freeze"
            self._freeze_fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        return self._freeze_fd

    def freeze(self) -> bool:
        """Stop every task of the sandbox (False: no freezer here, stop them another way)."""
        return self._freezer(b"1")

    def thaw(self) -> bool:
        return self._freezer(b"0")

    def _freezer(self, state: bytes) -> bool:
        try:
            fd = self._freezer_file()
            if fd is not None:
                os.write(fd, state)
                return True
        except OSError:
            pass
        return False

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a task of the sandbox for passing its memory limit."""
        return self.oom_kills() > 0

    def oom_kills(self) -> int:
        """How many tasks of the sandbox the kernel killed so far for passing its memory limit."""
        if self.host.version == 1:
            path, key = self.dirs["memory"] / "memory.oom_control", "oom_kill"
        else:
            path, key = self.dirs[""] / "memory.events", "oom_kill"
        try:
            for line in path.read_text().splitlines():
                name, _, number = line.partition(" ")
                if name == key:
                    return int(number)
        except (OSError, ValueError):
            pass
        return 0

    def kill_all(self) -> None:
        """SIGKILL every task (v2's `cgroup.kill`; elsewhere the PID namespace's end does it)."""
        if self.host.version == 2:
            with contextlib.suppress(OSError):
                _write(self.dirs[""] / "cgroup.kill", 1)

    async def remove(self) -> None:
        """Remove the groups once their tasks are gone (retried briefly: exits are reaped late)."""
        for _ in range(50):
            if self.remove_now():
                return
            await asyncio.sleep(0.02)

    def remove_now(self) -> bool:
        if self._freeze_fd is not None:
            os.close(self._freeze_fd)
            self._freeze_fd = None
        left = False
        for directory in self.dirs.values():
            try:
                directory.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                left = True
        return not left


def _write(path: Path, value: object) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)
