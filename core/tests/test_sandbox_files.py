"""Attacks on the host's files and secrets, each run in the bubblewrap sandbox and shown to fail:
reading the checkout, /root, /etc/shadow, /proc/1/environ and this process's environment (a
canary secret must never come out), writing outside the work directory (no file may appear on
the host), filling the work directory, and symlink and /proc/self tricks.
"""

from __future__ import annotations

import os
import secrets
import textwrap
from pathlib import Path

import pytest

from swift_gym.sandbox import SandboxLimits, Session, run
from swift_gym.sandbox.command import interpreter

pytestmark = pytest.mark.usefixtures("bwrap")
LIMITS = SandboxLimits(wall_seconds=20)
CHECKOUT = Path(__file__).resolve().parents[2]


async def test_the_checkout_root_and_shadow_cannot_be_read() -> None:
    targets = [str(Path(__file__).resolve()), str(CHECKOUT / "tox.ini"), "/etc/shadow",
               "/etc/passwd", "/root/.bash_history", "/root/.ssh/id_rsa",
               os.path.expanduser("~/.bashrc"), "/proc/1/root/etc/shadow",
               "/proc/self/root/etc/shadow"]  # fmt: skip
    code = textwrap.dedent(
        f"""
        import os
        for path in {targets!r}:
            try:
                print("READ", path, len(open(path, "rb").read()))
            except OSError as error:
                print("refused", path, type(error).__name__)
        for path in [{str(CHECKOUT)!r}, "/root", "/home", "/etc", "/"]:
            try:
                print("LIST", path, sorted(os.listdir(path)))
            except OSError as error:
                print("refused", path, type(error).__name__)
        """
    )
    result = await run(code, LIMITS)
    assert result.exit_code == 0, result
    assert "READ" not in result.stdout
    listed = {
        line.split(" ", 2)[1]: eval(line.split(" ", 2)[2])
        for line in result.stdout.splitlines()
        if line.startswith("LIST")
    }
    assert str(CHECKOUT) not in listed
    # only what the interpreter needs: /root holds at most the path down to a Python in it
    _, roots = interpreter()
    for entry in listed.get("/root", []):
        assert any(root.startswith(f"/root/{entry}") for root in roots), entry
    assert "shadow" not in listed.get("/etc", []) and "passwd" not in listed.get("/etc", [])
    system = {"usr", "bin", "lib", "lib64", "sbin", "proc", "dev", "work", ".swift_gym", "etc"}
    assert set(listed["/"]) <= system | {root.split("/")[1] for root in roots}


async def test_a_canary_secret_in_the_environment_never_comes_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    canary = "canary-" + secrets.token_hex(16)
    monkeypatch.setenv("SWIFT_GYM_TEST_CANARY", canary)
    code = textwrap.dedent(
        """
        import os
        print("env", dict(os.environ))
        for entry in os.listdir("/proc"):
            if entry.isdigit() or entry == "self":
                for name in ("environ", "cmdline"):
                    try:
                        print(entry, name, open(f"/proc/{entry}/{name}", "rb").read())
                    except OSError as error:
                        print(entry, name, "refused", type(error).__name__)
        print("pids", sorted(e for e in os.listdir("/proc") if e.isdigit()))
        """
    )
    result = await run(code, LIMITS)
    assert result.exit_code == 0, result
    assert canary not in result.stdout + result.stderr
    environ = next(line for line in result.stdout.splitlines() if line.startswith("1 environ"))
    names = {item.split(b"=")[0] for item in eval(environ.split(" ", 2)[2]).split(b"\0") if item}
    assert names == {b"PATH", b"HOME", b"TMPDIR", b"LANG", b"PWD"}  # PID 1 is the code itself
    assert "pids ['1']" in result.stdout  # no other process is visible
    async with Session(LIMITS) as session:
        answer = await session.call(code)
        assert canary not in (answer.stdout or "") + (answer.stderr or "")


async def test_writes_outside_the_work_directory_leave_no_file_on_the_host(
    tmp_path: Path,
) -> None:
    name = "written-" + secrets.token_hex(8)
    host_targets = [tmp_path / name, Path("/tmp") / name, CHECKOUT / name, Path("/") / name,
                    Path.home() / name]  # fmt: skip
    inside = [str(p) for p in host_targets] + [f"/usr/{name}", f"/proc/self/root/{name}",
              f"/dev/{name}", f"/dev/shm/{name}", f"/work/../{name}"]  # fmt: skip
    code = textwrap.dedent(
        f"""
        import os
        for path in {inside!r}:
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as handle:
                    handle.write("pwned")
                print("WROTE", path)
            except OSError as error:
                print("refused", path, type(error).__name__)
        with open("/work/{name}", "w") as handle:
            handle.write("fine")
        print("work dir ok", os.listdir("/work"))
        """
    )
    result = await run(code, LIMITS)
    assert result.exit_code == 0, result
    wrote = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("WROTE")]
    # a host path under /work (this checkout's, here) is written inside the work directory
    assert all(path.startswith("/work/") and ".." not in path for path in wrote), wrote
    assert "work dir ok" in result.stdout
    for path in [*host_targets, Path(f"/usr/{name}"), Path(f"/dev/shm/{name}")]:
        assert not path.exists(), path


async def test_symlinks_and_proc_self_lead_nowhere_outside(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret " + secrets.token_hex(8))
    code = textwrap.dedent(
        f"""
        import os
        os.symlink({str(secret)!r}, "to_secret")
        os.symlink("/proc/1/root", "root_of_init")
        os.symlink("/proc/self/cwd/../../..", "up")
        for path in ["to_secret", "root_of_init/{secret!s}", "up/{secret!s}",
                     "/proc/self/root{secret!s}", "/proc/1/cwd/../{secret!s}",
                     "/proc/2/root{secret!s}"]:
            try:
                print("READ", path, open(path).read())
            except OSError as error:
                print("refused", path, type(error).__name__)
        # opened for writing only, never written: were one writable, the test must not harm
        for path in ["/proc/sysrq-trigger", "/proc/sys/kernel/hostname",
                     "/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches",
                     "/proc/sys/kernel/modprobe", "/proc/self/exe", "/proc/1/exe",
                     "/proc/kcore", "/proc/self/root/usr/bin/env"]:
            try:
                os.close(os.open(path, os.O_WRONLY))
                print("WRITABLE", path)
            except OSError as error:
                print("refused", path, type(error).__name__)
        print("exe", os.readlink("/proc/self/exe"))
        print("pid", os.getpid())  # PID 1 is the code itself: no other process to take over
        print("done")
        """
    )
    result = await run(code, LIMITS)
    assert "done" in result.stdout, result
    assert "READ" not in result.stdout and "host secret" not in result.stdout
    assert "WRITABLE" not in result.stdout
    assert "pid 1\n" in result.stdout
    assert secret.read_text().startswith("host secret")


async def test_filling_the_work_directory_stops_at_its_size() -> None:
    limits = SandboxLimits(wall_seconds=20, work_bytes=8 * 1024 * 1024)
    code = textwrap.dedent(
        """
        import os
        written = 0
        try:
            for index in range(1000):
                with open(f"/work/fill{index}", "wb") as handle:
                    handle.write(b"x" * 1024 * 1024)
                written += 1
        except OSError as error:
            print("stopped", written, error.strerror)
        try:
            open("/work/huge", "wb").write(b"x" * 64 * 1024 * 1024)
        except OSError as error:
            print("huge stopped", error.strerror)
        """
    )
    async with Session(limits) as session:
        answer = await session.call(code)
        assert answer.error is None, answer
        assert "stopped" in answer.stdout, answer
        written = int(answer.stdout.split()[1])
        assert written <= 8
        assert "No space left on device" in answer.stdout or "File too large" in answer.stdout
        # the session itself still works, and the files are still there
        after = await session.call("import os; os.remove('/work/fill0'); len(os.listdir('/work'))")
        assert after.error is None and after.value is not None, after
