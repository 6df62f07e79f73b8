"""The sandbox's seccomp filter: the system calls refused to the code, whatever its limits.

Always refused: the kernel's key management (`keyctl`, `add_key`, `request_key`, as Docker's and
Flatpak's filters do). Keyrings are not namespaced: without this, code could read, replace or
leave keys in the session keyring of the user that runs swift-gym, for a later episode or the
host to find. Then, by what the host can bound (`bounds.py`):

- without cgroups, what no rlimit counts is refused: SysV shared memory and message queues
  (`shmget`, `msgget`: their pages outlive the mapping) and memory-only files (`memfd_create`,
  `memfd_secret`: filled with `write()`, they are never mapped);
- without a pids cgroup, as the host's root (for whom the kernel never enforces RLIMIT_NPROC:
  the `INIT_USER` exception in `copy_process`, kept inside bubblewrap's user namespace), new
  tasks are refused: `fork`, `vfork` and every `clone` (threads too) fail with EPERM, and
  `clone3` with ENOSYS (so the C library falls back to `clone`, and gets EPERM).

A refused call fails with an errno (the code gets an OSError it can read); a call of another ABI
(i386 or x32 on x86_64) is refused whole, so no rule is bypassed through another table.

A classic BPF program, written out by hand (libseccomp would be a dependency for a few dozen
instructions); bubblewrap loads it (`--seccomp FD`) just before it starts the code.
"""

from __future__ import annotations

import platform
import struct
from typing import Literal, NamedTuple

Tasks = Literal["allowed", "none"]
"""New tasks (processes and threads): allowed (a pids cgroup or RLIMIT_NPROC bounds them), or
none at all."""


class Arch(NamedTuple):
    audit: int
    numbers: dict[str, int]


_ARCHES = {
    "x86_64": Arch(
        0xC000003E,
        {
            "clone": 56, "clone3": 435, "fork": 57, "vfork": 58,
            "keyctl": 250, "add_key": 248, "request_key": 249,
            "shmget": 29, "msgget": 68, "memfd_create": 319, "memfd_secret": 447,
        },
    ),
    "aarch64": Arch(
        0xC00000B7,
        {
            "clone": 220, "clone3": 435,
            "keyctl": 219, "add_key": 217, "request_key": 218,
            "shmget": 194, "msgget": 186, "memfd_create": 279, "memfd_secret": 447,
        },
    ),
}  # fmt: skip
KEYRING = ("keyctl", "add_key", "request_key")
UNBOUNDED_MEMORY = ("shmget", "msgget", "memfd_create", "memfd_secret")
FORKS = ("fork", "vfork")
_X32_BIT = 0x40000000
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH = 0, 4
_LD_W_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06


def supported() -> bool:
    """Whether this machine's architecture has a filter here."""
    return platform.machine() in _ARCHES


def refused(refuse_memory: bool, tasks: Tasks) -> list[str]:
    """The names of the system calls the filter refuses, in its order (for the docs and doctor)."""
    names = list(KEYRING)
    if refuse_memory:
        names += UNBOUNDED_MEMORY
    if tasks != "allowed":
        names += [*FORKS, "clone", "clone3"]
    return names


def program(refuse_memory: bool, tasks: Tasks) -> bytes:
    """The filter, as the `struct sock_filter` array bubblewrap reads from `--seccomp FD`."""
    arch = _ARCHES[platform.machine()]
    numbers = arch.numbers
    code: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ, 1, 0, arch.audit),  # another ABI (i386 on x86_64): refused whole
        (_RET, 0, 0, _KILL_PROCESS),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if arch.audit == 0xC000003E:  # x32 system calls share the arch: refuse them
        code += [(_JGE, 0, 1, _X32_BIT), (_RET, 0, 0, _ERRNO | _EPERM)]
    for name in refused(refuse_memory, tasks):  # one list: what doctor says is what runs
        if name in numbers:  # fork and vfork exist on x86_64 only
            errno = _ENOSYS if name == "clone3" else _EPERM  # clone3: the C library falls back
            code += [(_JEQ, 0, 1, numbers[name]), (_RET, 0, 0, _ERRNO | errno)]
    code.append((_RET, 0, 0, _ALLOW))
    return b"".join(struct.pack("<HBBI", *instruction) for instruction in code)
