"""The command line that starts the sandboxed interpreter: bubblewrap's mounts and namespaces.

What the code sees: `/usr` (and the `/bin`, `/lib`, `/lib64` links into it) and the Python
install that runs it, read-only; a fresh `/proc` of its own PID namespace; a minimal `/dev`; a
work directory `/work` on a tmpfs of `work_bytes`, its only writable place; nothing else (no
`/etc` but `ld.so.cache`, no home, no checkout, no host `/tmp`), and the inside program at
`/.swift_gym`. The root, `/dev` and `/proc/sys` are read-only. All
namespaces are new (user, PID, network, IPC, UTS, mount, cgroup): the network namespace has only
its own loopback. The environment is empty but for PATH, HOME, TMPDIR and LANG.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from .limits import SandboxLimits

WORK = "/work"
"""The work directory inside the sandbox: the code's current directory, HOME and TMPDIR."""
LIB = "/.swift_gym"
"""Where the inside program is mounted in the sandbox (read-only, with its compiled bytecode)."""
INSIDE = Path(__file__).with_name("inside.py")
INSIDE_FILES = (INSIDE, INSIDE.with_name("inside_workspace.py"))
"""The inside programs, mounted side by side in LIB (a workspace's server imports the second)."""
_LOAD = "import sys; sys.path.insert(0, {!r}); import inside"
"""Imported, not passed as `-c` source: its .pyc (compiled when pip installed swift-gym) loads
without compiling 200 lines at every start."""
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": WORK, "TMPDIR": WORK, "LANG": "C.UTF-8"}
_SYSTEM = ("/usr",)
_LINKS = ("bin", "lib", "lib64", "sbin")


@lru_cache(maxsize=1)
def interpreter() -> tuple[str, tuple[str, ...]]:
    """(the host's Python, resolved out of any venv, and the install directories it needs).

    The sandbox runs the base interpreter with `-I -S`: no site-packages, no venv, no user
    directories, nothing from the environment; only the standard library.
    """
    executable = os.path.realpath(sys.executable)
    prefixes = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    roots = {p for p in prefixes if not any(p.startswith(s + "/") for s in _SYSTEM)}
    if not any(executable.startswith(p + "/") for p in (*roots, *_SYSTEM)):
        roots.add(os.path.dirname(executable))
    return executable, tuple(sorted(roots))


def limits_argument(limits: SandboxLimits) -> str:
    """`name=number,...`: read inside without importing json."""
    numbers = limits.model_dump(exclude={"backend"})
    return ",".join(
        f"{name}={value:.6f}" if isinstance(value, float) else f"{name}={value}"
        for name, value in numbers.items()
    )


def python_argv(
    mode: str, limits: SandboxLimits, lib: str = LIB, ready_fd: int | None = None
) -> list[str]:
    """The interpreter and its arguments: the inside program in `mode` (run or repl), imported
    from `lib` (its directory as the interpreter sees it); it writes `ready` on `ready_fd` once
    its limits are set, before it reads any code."""
    executable, _ = interpreter()
    load = _LOAD.format(lib)
    numbers = limits_argument(limits) + (f",ready_fd={ready_fd}" if ready_fd is not None else "")
    return [executable, "-I", "-S", "-B", "-c", load, mode, numbers]


def bwrap_argv(
    bwrap: str,
    mode: str,
    limits: SandboxLimits,
    info_fd: int,
    seccomp_fd: int | None,
    disable_userns: bool = True,
    *,
    ready_fd: int,
    extra: Sequence[str] = (),
) -> list[str]:
    """bubblewrap's whole command line (`info_fd` receives the sandbox's PID 1 as JSON; the
    interpreter says `ready` on `ready_fd` once its limits are set; `extra`: more of bubblewrap's
    options, before the root is made read-only: a workspace's mounts and variables)."""
    _, roots = interpreter()
    argv = [
        bwrap,
        "--unshare-all",
        "--unshare-user",
        *(["--disable-userns"] if disable_userns else []),
        "--die-with-parent",
        "--new-session",
        # no bwrap process inside: the code's own interpreter is PID 1, so no process outside
        # the code's limits (and outside the seccomp filter) exists there to be taken over
        # through /proc/1/mem or ptrace
        "--as-pid-1",
        "--info-fd",
        str(info_fd),
        # as the host's root, bubblewrap would keep the code's capabilities (CapEff 1fffeffffff)
        "--cap-drop",
        "ALL",
        "--clearenv",
    ]
    for name, value in ENV.items():
        argv += ["--setenv", name, value]
    for path in _SYSTEM:
        argv += ["--ro-bind", path, path]
    for link in _LINKS:
        if os.path.islink(f"/{link}"):
            argv += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            argv += ["--ro-bind", f"/{link}", f"/{link}"]
    for root in roots:
        argv += ["--ro-bind", root, root]
    for program in INSIDE_FILES:
        argv += ["--ro-bind", str(program), f"{LIB}/{program.name}"]
    compiled = INSIDE.parent / "__pycache__"
    if compiled.is_dir():
        argv += ["--ro-bind", str(compiled), f"{LIB}/__pycache__"]
    if os.path.exists("/etc/ld.so.cache"):
        argv += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    # sysctls check for the host's root user, not a capability: code running as the host's
    # root (uid 0 mapped to itself) could write /proc/sys/kernel/core_pattern. Read-only.
    argv += ["--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]
    argv += ["--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger", "--dev", "/dev"]
    argv += ["--size", str(limits.work_bytes), "--tmpfs", WORK, "--chdir", WORK]
    argv += [*extra, "--remount-ro", "/dev", "--remount-ro", "/"]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    return [*argv, "--", *python_argv(mode, limits, ready_fd=ready_fd)]
