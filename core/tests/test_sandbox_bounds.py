"""Attacks on what the sandbox bounds as a container does, each in every mode this host gives:
as root with cgroups, as root without them (`SWIFT_GYM_SANDBOX_CGROUPS=off`: the seccomp
mode), and as an unprivileged user (`nobody`, from a venv of Debian's /usr/bin/python3 that
user can read). Each attack runs through `sandbox_driver.py` in a process of its own, as that
user, and must be bounded there: SysV shared memory and memory files past the memory limit,
threads past `max_processes`, the host's keyrings, capabilities, work and output between a
session's calls, and a forged answer on the session's answer pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from swift_gym.sandbox import cgroups

pytestmark = [pytest.mark.usefixtures("bwrap"), pytest.mark.timeout(240)]
MiB = 1024 * 1024
DRIVER = Path(__file__).with_name("sandbox_driver.py")
NOBODY = 65534
REQUIRED = os.environ.get("SWIFT_GYM_SANDBOX_TESTS") == "required"

Drive = Callable[[dict[str, Any]], dict[str, Any]]


def _unavailable(why: str) -> None:
    if REQUIRED:
        pytest.fail(f"{why} (SWIFT_GYM_SANDBOX_TESTS=required)")
    pytest.skip(why)


def _cgroups_here() -> bool:
    return cgroups._find().host is not None


MODES = ["root-cgroup", "root-seccomp", "user"]


@pytest.fixture(params=MODES)
def drive(request: pytest.FixtureRequest) -> Drive:
    """Runs a scenario in this mode's driver process; returns what it printed."""
    mode = request.param
    env = {key: value for key, value in os.environ.items() if key != cgroups.VARIABLE}
    argv = [sys.executable, str(DRIVER)]
    if mode.startswith("root") and os.geteuid() != 0:
        pytest.skip("runs as root; this test runs as an unprivileged user (its `user` mode)")
    if mode == "root-cgroup":
        if not _cgroups_here():
            _unavailable(f"no cgroups for sandboxes here: {cgroups._find().reason}")
        env[cgroups.VARIABLE] = "required"
    elif mode == "root-seccomp":
        env[cgroups.VARIABLE] = "off"
    nobody = None
    if mode == "user" and os.geteuid() == 0:
        nobody = request.getfixturevalue("nobody")
        nobody.copy(DRIVER)

    def run(scenario: dict[str, Any]) -> dict[str, Any]:
        if nobody is not None:
            done = nobody.run(DRIVER.name, stdin=json.dumps(scenario))
        else:
            done = subprocess.run(
                argv, input=json.dumps(scenario), capture_output=True, text=True, env=env, cwd="/"
            )
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.splitlines()[-1])
        expected_uid = NOBODY if mode == "user" and os.geteuid() == 0 else os.geteuid()
        assert report["uid"] == expected_uid
        report["case"] = mode
        return report

    return run


def code(text: str) -> str:
    return textwrap.dedent(text).strip() + "\n"


SYSV = code(
    """
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    held = globals().setdefault("held", [])
    try:
        segment = libc.shmget(0, 64 << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if segment < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        address = libc.shmat(segment, None, 0)
        ctypes.memset(address, 1, 64 << 20)
        libc.shmdt(ctypes.c_void_p(address))  # detached: its pages stay, counted by no rlimit
        held.append(segment)
        print("held", len(held) * 64)
    except OSError as error:
        print("refused", error.errno)
    """
)


def test_sysv_shared_memory_is_bounded_by_the_memory_limit(drive: Drive) -> None:
    limits = {"memory_bytes": 128 * MiB, "work_bytes": 16 * MiB, "wall_seconds": 20}
    report = drive({"limits": limits, "steps": [{"call": SYSV}] * 12})
    held = [int(r["stdout"].split()[1]) for r in report["results"] if "held" in r["stdout"]]
    assert max(held, default=0) * MiB <= limits["memory_bytes"] + limits["work_bytes"], report
    ends = [r for r in report["results"] if r["ended"] or "refused" in r["stdout"]]
    assert ends, report  # the attack was stopped, not finished
    if report["mode"] == "cgroup":
        assert any(r["limit"] == "memory" for r in ends), report
    else:
        assert all("refused 1" in r["stdout"] for r in report["results"]), report  # EPERM


MEMFD = code(
    """
    import os
    total = 0
    try:
        while total < (512 << 20):
            fd = os.memfd_create("hoard")
            for _ in range(16):
                os.write(fd, b"x" * (1 << 20))  # written, never mapped: RLIMIT_AS does not see it
            total += 16
            print("held", total, flush=True)
    except OSError as error:
        print("refused", error.errno, flush=True)
    """
)


def test_memory_files_are_bounded_by_the_memory_limit(drive: Drive) -> None:
    limits = {"memory_bytes": 128 * MiB, "work_bytes": 16 * MiB, "wall_seconds": 30}
    report = drive({"limits": limits, "steps": [{"run": MEMFD}]})
    (result,) = report["results"]
    held = [int(line.split()[1]) for line in result["stdout"].splitlines() if "held" in line]
    assert max(held, default=0) * MiB <= limits["memory_bytes"] + limits["work_bytes"], result
    if report["mode"] == "cgroup":
        assert result["limit"] == "memory", result
    else:
        assert "refused 1" in result["stdout"], result


THREADS = code(
    """
    import threading, time
    threading.stack_size(64 << 10)
    started = 0
    try:
        for _ in range(2000):
            threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
            started += 1
    except RuntimeError as error:
        print("refused", error)
    print("started", started)
    """
)


def test_threads_are_bounded_by_max_processes(drive: Drive) -> None:
    limits = {"max_processes": 16, "wall_seconds": 20}
    report = drive({"limits": limits, "steps": [{"run": THREADS}]})
    (result,) = report["results"]
    started = int(result["stdout"].split("started ")[1].split()[0])
    assert "refused" in result["stdout"], result
    assert started < limits["max_processes"], result  # the interpreter's own thread counts
    if report["case"] == "root-seccomp":
        assert started == 0, result  # as root without a pids group, no task may start


KEYRING = code(
    """
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    SYS = {"x86_64": (250, 248, 249), "aarch64": (219, 217, 218)}[os.uname().machine]
    keyctl, add_key, request_key = SYS
    session = ctypes.c_long(-3)  # KEY_SPEC_SESSION_KEYRING
    tries = {
        "keyctl": lambda: libc.syscall(keyctl, 0, session, 0),  # KEYCTL_GET_KEYRING_ID
        "add_key": lambda: libc.syscall(add_key, b"user", b"left-behind", b"x", 1, session),
        "request_key": lambda: libc.syscall(request_key, b"user", b"host-secret", None, 0),
    }
    for name, attempt in tries.items():
        got = attempt()
        print(name, got, ctypes.get_errno() if got < 0 else 0)
    """
)


def test_the_kernels_keyrings_are_refused(drive: Drive) -> None:
    report = drive({"steps": [{"run": KEYRING}]})
    (result,) = report["results"]
    lines = dict(line.split(" ", 1) for line in result["stdout"].splitlines())
    assert set(lines) == {"keyctl", "add_key", "request_key"}, result
    for name, said in lines.items():
        assert said == "-1 1", (name, said)  # EPERM: no keyring is reached, none is left


def test_no_capability_is_kept(drive: Drive) -> None:
    read = "print(dict(l.split(':\\t') for l in open('/proc/self/status').read().splitlines()"
    read += " if l.startswith('Cap'))['CapEff'].strip())"
    report = drive({"steps": [{"run": read}, {"call": read}]})
    assert [r["stdout"].strip() for r in report["results"]] == ["0000000000000000"] * 2, report


BACKGROUND = code(
    """
    import os, threading
    def spin():
        while True:
            pass
    def flood():
        while True:
            os.write(2, b"x" * 65536)
    started = []
    for work in (spin, flood):
        try:
            threading.Thread(target=work, daemon=True).start()
            started.append(work.__name__)
        except RuntimeError:
            pass
    print("started", started)
    """
)


def test_nothing_runs_between_a_sessions_calls(drive: Drive) -> None:
    steps = [{"call": BACKGROUND}, {"idle": 1}, {"call": "6 * 7"}]
    report = drive({"limits": {"wall_seconds": 10}, "steps": steps})
    first, idle, last = report["results"]
    assert "started" in first["stdout"], first
    # a spinning thread would use the whole second, and draining its flood the host's CPU
    assert idle["sandbox_cpu"] < 0.3, idle
    assert idle["host_cpu"] < 0.3, idle
    assert last["value"] == "42", last


FORGE = code(
    """
    import json, os, sys, time
    found = sys._getframe()
    while found is not None and "request" not in found.f_locals:
        found = found.f_back
    answer = {"stdout": "forged\\n", "stderr": "", "value": None, "error": None,
              "truncated": False, "limit": ""}
    if WITH_ID:
        answer["id"] = found.f_locals["request"]["id"]
    line = (json.dumps(answer) + "\\n").encode()
    for fd in map(int, os.listdir("/proc/self/fd")):
        if fd > 2:
            try:
                os.write(fd, line)  # the answer pipe takes it; the request pipe refuses
            except OSError:
                pass
    time.sleep(3)  # and run on, past the wall limit, its real answer coming late
    """
)


@pytest.mark.parametrize("with_id", [False, True])
def test_a_forged_answer_never_answers_a_later_call(drive: Drive, with_id: bool) -> None:
    forge = f"WITH_ID = {with_id}\n" + FORGE
    steps = [{"call": forge}, {"call": "6 * 7"}, {"call": "6 * 7"}]
    report = drive({"limits": {"wall_seconds": 1}, "steps": steps})
    first, second, third = report["results"]
    if with_id:
        # the code answered its own call: it fools only its own episode, as printing would
        assert first["stdout"] == "forged\n", first
        # the next call does not take the late answer of the first: the session ends
        assert second["ended"] and second["value"] is None, second
        assert "forged" not in second["stdout"], second
    else:
        assert first["ended"] and "not this call's" in first["error"], first
        assert second["value"] == "42", second
    assert third["value"] == "42", third
