"""Whether bubblewrap can isolate code on this machine, found out once per process.

A sandbox that silently ran without isolation would be worse than none, so a missing `bwrap`, or
a kernel that refuses it user namespaces, is an error that says what to do; the probe runs
`bwrap` once with the namespaces every sandbox uses and caches the verdict.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from typing import NamedTuple

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


MIN_VERSION = (0, 5)
"""`--size` for a tmpfs came in bubblewrap 0.5; `--disable-userns` in 0.8 (used when there)."""


class Bubblewrap(NamedTuple):
    """The `bwrap` found, and whether it can forbid nested user namespaces."""

    path: str
    disable_userns: bool


@functools.lru_cache(maxsize=1)
def bubblewrap() -> Bubblewrap:
    """The `bwrap` that works here; raises SandboxUnavailableError saying how to get one."""
    path = os.environ.get("SWIFT_GYM_BWRAP") or shutil.which("bwrap")
    if not path:
        raise SandboxUnavailableError(
            f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}. {UNSAFE_HINT}"
        )
    version = _version(path)
    if version is not None and version < MIN_VERSION:
        raise SandboxUnavailableError(
            f"{path} is bubblewrap {'.'.join(map(str, version))}; the sandbox needs "
            f"{'.'.join(map(str, MIN_VERSION))} or newer: {INSTALL_HINT}. {UNSAFE_HINT}"
        )
    disable_userns = version is not None and version >= (0, 8)
    probe = [path, "--unshare-all", "--unshare-user", "--die-with-parent"]
    probe += ["--disable-userns"] if disable_userns else []
    probe += ["--ro-bind", "/", "/", "--", "/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, env={})
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxUnavailableError(f"{path} cannot run: {error}. {UNSAFE_HINT}") from None
    if done.returncode != 0:
        said = done.stderr.strip()[-300:] or f"exit status {done.returncode}"
        raise SandboxUnavailableError(
            f"bubblewrap cannot create its namespaces here ({said}): {ENABLE_HINT}. {UNSAFE_HINT}"
        )
    return Bubblewrap(path, disable_userns)


def _version(path: str) -> tuple[int, ...] | None:
    """`bwrap --version`'s numbers ("bubblewrap 0.8.0"), or None when it does not say."""
    try:
        said = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"(\d+)\.(\d+)", said.stdout)
    return tuple(int(part) for part in found.groups()) if found else None
