"""A seccomp filter that forbids new processes (threads stay allowed), for when RLIMIT_NPROC
cannot hold.

The kernel never enforces RLIMIT_NPROC for processes whose real user is the host's root (the
`INIT_USER` exception in `copy_process`), and inside bubblewrap's user namespace the code keeps
that user. So when swift-gym runs as root, a fork bomb would meet no process limit; this filter
makes `fork`, `vfork` and `clone` without `CLONE_THREAD` fail with EPERM, and `clone3` (whose
flags a filter cannot read) fail with ENOSYS, so the C library falls back to `clone`. Threads
are still bounded by the address-space limit (each reserves its stack).

A classic BPF program, written out by hand (libseccomp would be a dependency for twelve
instructions); bubblewrap loads it (`--seccomp FD`) just before it starts the code.
"""

from __future__ import annotations

import platform
import struct

_ARCHES = {
    # machine: (AUDIT_ARCH_*, clone, clone3, [fork, vfork])
    "x86_64": (0xC000003E, 56, 435, (57, 58)),
    "aarch64": (0xC00000B7, 220, 435, ()),
}
_X32_BIT = 0x40000000
_CLONE_THREAD = 0x00010000
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH, _ARG0_LOW = 0, 4, 16
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06


def supported() -> bool:
    """Whether this machine's architecture has a filter here."""
    return platform.machine() in _ARCHES


def no_new_processes() -> bytes:
    """The filter, as the `struct sock_filter` array bubblewrap reads from `--seccomp FD`."""
    arch, clone, clone3, forks = _ARCHES[platform.machine()]
    program: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ, 1, 0, arch),  # another ABI (i386 on x86_64): refused whole
        (_RET, 0, 0, _KILL_PROCESS),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if arch == 0xC000003E:  # x32 system calls share the arch: refuse them
        program += [(_JGE, 0, 1, _X32_BIT), (_RET, 0, 0, _ERRNO | _EPERM)]
    for number in forks:
        program += [(_JEQ, 0, 1, number), (_RET, 0, 0, _ERRNO | _EPERM)]
    program += [
        (_JEQ, 0, 1, clone3),
        (_RET, 0, 0, _ERRNO | _ENOSYS),
        (_JEQ, 0, 3, clone),
        (_LD_W_ABS, 0, 0, _ARG0_LOW),  # clone's flags (x86_64 and aarch64 both pass them first)
        (_JSET, 1, 0, _CLONE_THREAD),
        (_RET, 0, 0, _ERRNO | _EPERM),
        (_RET, 0, 0, _ALLOW),
    ]
    return b"".join(struct.pack("<HBBI", *instruction) for instruction in program)
