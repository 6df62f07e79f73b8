"""Whether bubblewrap can isolate code on this machine, found out once per process.

A sandbox that silently ran without isolation would be worse than none, so a missing `bwrap`, or
a kernel that refuses it user namespaces, is an error that says what to do; the probe runs
`bwrap` once with the namespaces every sandbox uses and caches the verdict.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

from ..errors import SandboxUnavailableError

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap; Arch: pacman -S bubblewrap)"
)
ENABLE_HINT = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
    "user.max_user_namespaces > 0; on Ubuntu 24.04+ also "
    "kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), or run "
    "where they are allowed (in Docker: --security-opt seccomp=unconfined or a profile that "
    "permits clone(CLONE_NEWUSER))"
)
UNSAFE_HINT = (
    "To run code without any isolation anyway (only code you trust), set "
    'SandboxLimits(backend="unsafe_local").'
)


@functools.lru_cache(maxsize=1)
def bwrap_path() -> str:
    """The `bwrap` that works here; raises SandboxUnavailableError saying how to get one."""
    path = os.environ.get("SWIFT_GYM_BWRAP") or shutil.which("bwrap")
    if not path:
        raise SandboxUnavailableError(
            f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}. {UNSAFE_HINT}"
        )
    probe = [
        path,
        "--unshare-all",
        "--unshare-user",
        "--die-with-parent",
        "--disable-userns",
        "--ro-bind",
        "/",
        "/",
        "--",
        "/bin/true",
    ]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, env={})
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxUnavailableError(f"{path} cannot run: {error}. {UNSAFE_HINT}") from None
    if done.returncode != 0:
        said = done.stderr.strip()[-300:] or f"exit status {done.returncode}"
        raise SandboxUnavailableError(
            f"bubblewrap cannot create its namespaces here ({said}): {ENABLE_HINT}. {UNSAFE_HINT}"
        )
    return path
