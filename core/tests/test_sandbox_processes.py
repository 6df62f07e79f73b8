"""Attacks with processes and signals, each run in the bubblewrap sandbox and shown to fail: a fork
bomb, daemonised and orphaned children (none may survive the session: /proc is scanned for
every process of the sandbox's PID namespace), signals to the parent and to host processes, and
the death of the process that owns the sandbox (SIGTERM, SIGKILL): nothing of it stays alive.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from swift_gym.sandbox import SandboxLimits, Session, run
from swift_gym.sandbox.process import live

pytestmark = pytest.mark.usefixtures("bwrap")
LIMITS = SandboxLimits(wall_seconds=20, max_processes=8)
NAMESPACE = "import os; NS = os.readlink('/proc/self/ns/pid'); print('namespace', NS)\n"


def namespace_of(text: str) -> str:
    return next(line.split()[1] for line in text.splitlines() if line.startswith("namespace "))


async def test_a_fork_bomb_is_stopped_and_leaves_nothing(processes_in) -> None:
    code = NAMESPACE + textwrap.dedent(
        """
        import time
        made = 0
        try:
            while True:
                if os.fork() == 0:  # every child sleeps: they would pile up
                    time.sleep(60)
                    os._exit(0)
                made += 1
        except OSError as error:
            print("refused after", made, type(error).__name__)
        """
    )
    result = await run(code, LIMITS)
    assert "refused after" in result.stdout, result
    made = int(result.stdout.split("refused after ")[1].split()[0])
    assert made < LIMITS.max_processes  # the kernel refused before the limit was passed
    assert processes_in(namespace_of(result.stdout)) == []
    assert subprocess.run(["true"], check=False).returncode == 0  # the host still forks


async def test_daemons_and_orphans_die_with_the_session(processes_in) -> None:
    daemonise = textwrap.dedent(
        """
        import signal, subprocess, threading, time
        started = []
        for index in range(3):
            try:
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:  # the grandchild: a daemon, orphaned at once
                        signal.signal(signal.SIGTERM, signal.SIG_IGN)
                        signal.signal(signal.SIGHUP, signal.SIG_IGN)
                        time.sleep(600)
                    os._exit(0)
                started.append(index)
            except OSError as error:
                print("fork refused", type(error).__name__)
                break
        try:
            child = os.fork()
            if child == 0:
                os.kill(os.getpid(), signal.SIGSTOP)  # a stopped process must die too
                os._exit(0)
        except OSError as error:
            print("fork refused", type(error).__name__)
        try:
            threading.Thread(target=time.sleep, args=(600,), daemon=False).start()
        except RuntimeError:  # as root without cgroups no task may start
            print("thread refused")
        print("started", len(started))
        """
    )
    session = Session(LIMITS)
    try:
        first = await session.call(NAMESPACE + daemonise)
        assert first.error is None, first
        namespace = namespace_of(first.stdout)
        assert processes_in(namespace)  # the session is alive
        # its variables are still there after the children were made
        second = await session.call("NS")
        assert second.value == repr(namespace)
    finally:
        await session.close()
    assert processes_in(namespace) == []
    assert not [sandbox for sandbox in live() if sandbox.process.returncode is None]


async def test_signals_reach_no_host_process(processes_in) -> None:
    host_sleeper = subprocess.Popen(["sleep", "60"])
    try:
        code = NAMESPACE + textwrap.dedent(
            f"""
            import signal
            for target in [{os.getpid()}, {host_sleeper.pid}, os.getppid(), 1, -1, 0]:
                for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
                    try:
                        if target == 0:
                            os.killpg(0, sig) if sig != signal.SIGKILL else None
                        elif target not in (1, os.getpid()) or sig != signal.SIGKILL:
                            os.kill(target, sig) if target != -1 else None
                        print("sent", target, sig.name)
                    except OSError as error:
                        print("refused", target, sig.name, type(error).__name__)
            print("alive", os.getpid(), os.getppid())
            """
        )
        async with Session(LIMITS) as session:
            answer = await session.call(code)
        assert "alive" in answer.stdout or answer.ended, answer
        assert host_sleeper.poll() is None  # the host's process was never hit
        # the test process itself is running this line: nothing inside could signal it
        assert processes_in(namespace_of(answer.stdout)) == []
        result = await run(
            f"import os, signal\nos.kill({os.getpid()}, signal.SIGKILL)\nprint('tried')",
            LIMITS,
        )
        assert "ProcessLookupError" in result.stderr or "tried" in result.stdout, result
    finally:
        host_sleeper.kill()
        host_sleeper.wait()


OWNER = """
import asyncio, sys
from swift_gym.sandbox import Session, SandboxLimits

async def main():
    session = Session(SandboxLimits(wall_seconds=60))
    answer = await session.call(
        "import os, time\\n"
        "try:\\n    os.fork() or time.sleep(600)\\nexcept OSError: pass\\n"
        "os.readlink('/proc/self/ns/pid')"
    )
    print(answer.value, flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL, "exit"])
async def test_no_sandbox_process_outlives_its_owner(how: object, processes_in) -> None:
    source = OWNER if how != "exit" else OWNER.replace("await asyncio.sleep(600)", "")
    owner = await asyncio.create_subprocess_exec(
        sys.executable, "-c", source, stdout=asyncio.subprocess.PIPE
    )
    assert owner.stdout is not None
    line = (await asyncio.wait_for(owner.stdout.readline(), 60)).decode().strip()
    namespace = line.strip("'\"")
    assert namespace.startswith("pid:["), line
    if how != "exit":
        assert processes_in(namespace)
        owner.send_signal(how)  # type: ignore[arg-type]
    await asyncio.wait_for(owner.wait(), 60)
    for _ in range(100):  # the kernel tears the namespace down as its PID 1 dies
        if not processes_in(namespace):
            break
        await asyncio.sleep(0.05)
    assert processes_in(namespace) == []
    if how == "exit":  # the owner's atexit hook removed its sandboxes' cgroups too
        from swift_gym.sandbox import cgroups

        found = cgroups.host().host
        parents = found.parents.values() if found is not None else []
        assert [g for p in parents for g in p.glob(f"{owner.pid}-*")] == []
