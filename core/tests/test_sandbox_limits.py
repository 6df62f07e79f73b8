"""Attacks on the machine's resources, each run in the bubblewrap sandbox and shown to be stopped
by its limit: a memory bomb, a CPU spin, sleeping past the wall limit, and an output flood of
gigabytes (cut at the cap, and quickly: the run is ended, not read to its end). Each checks
that the sandbox left no process behind.
"""

from __future__ import annotations

import textwrap

import pytest

from swift_gym.sandbox import SandboxLimits, Session, run

pytestmark = pytest.mark.usefixtures("bwrap")
NAMESPACE = "import os; print('namespace', os.readlink('/proc/self/ns/pid'), flush=True)\n"
MiB = 1024 * 1024


def namespace_of(text: str) -> str:
    return next(line.split()[1] for line in text.splitlines() if line.startswith("namespace "))


async def test_a_memory_bomb_meets_the_memory_limit(processes_in) -> None:
    limits = SandboxLimits(memory_bytes=256 * MiB, wall_seconds=20)
    code = NAMESPACE + textwrap.dedent(
        """
        hoard = []
        try:
            while True:
                hoard.append(bytearray(16 * 1024 * 1024))
        except MemoryError:
            print("stopped at", len(hoard) * 16, "MiB")
        del hoard
        try:
            bytearray(10**11)
        except MemoryError:
            print("100 GB refused")
        """
    )
    result = await run(code, limits)
    assert result.exit_code == 0, result
    assert "100 GB refused" in result.stdout
    assert int(result.stdout.split("stopped at ")[1].split()[0]) <= 256
    assert processes_in(namespace_of(result.stdout)) == []
    async with Session(limits) as session:
        answer = await session.call("x = bytearray(10**11)")
        assert answer.error is not None and "MemoryError" in answer.error
        assert (await session.call("1 + 1")).value == "2"  # the session survives it


async def test_a_cpu_spin_meets_the_cpu_limit(processes_in) -> None:
    limits = SandboxLimits(cpu_seconds=1, wall_seconds=30)
    result = await run(NAMESPACE + "while True:\n    pass\n", limits)
    assert result.limit == "CPU time" and result.exit_code is None, result
    assert processes_in(namespace_of(result.stdout)) == []
    async with Session(limits) as session:
        answer = await session.call("while True:\n    pass\n")
        assert answer.limit == "CPU time", answer
        assert "CpuLimitExceeded" in (answer.error or "")
        assert (await session.call("2 + 2")).value == "4"  # the next call gets its own second


async def test_sleeping_past_the_wall_limit_ends_the_run(processes_in) -> None:
    limits = SandboxLimits(wall_seconds=1)
    result = await run(NAMESPACE + "import time\ntime.sleep(3600)\n", limits)
    assert result.timed_out and result.exit_code is None, result
    assert processes_in(namespace_of(result.stdout)) == []
    async with Session(limits) as session:
        namespace = namespace_of((await session.call(NAMESPACE)).stdout)
        answer = await session.call("import time\ntime.sleep(3600)")
        assert answer.timed_out and answer.ended, answer
        assert processes_in(namespace) == []
        assert (await session.call("3 + 3")).value == "6"  # a fresh sandbox


async def test_an_output_flood_of_gigabytes_is_cut_at_the_cap(processes_in) -> None:
    limits = SandboxLimits(output_bytes=64 * 1024, wall_seconds=60)
    flood = (
        "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(4096):\n    sys.stdout.write(chunk)\n"
    )
    result = await run(NAMESPACE + flood, limits)  # 4 GiB asked for
    assert result.truncated and result.limit == "output size", result
    assert len(result.stdout) == limits.output_bytes
    assert processes_in(namespace_of(result.stdout)) == []
    to_stderr = (
        "import os\nchunk = b'e' * (1 << 20)\nfor _ in range(4096):\n    os.write(2, chunk)\n"
    )
    result = await run(to_stderr, limits)
    assert result.truncated and len(result.stderr) == limits.output_bytes, result
    async with Session(limits) as session:
        answer = await session.call(flood.replace("4096", "2048") + "'done'")
        assert answer.truncated and answer.value == "'done'", answer
        assert len(answer.stdout) <= limits.output_bytes
        raw = "import os\nchunk = b'r' * (1 << 20)\nfor _ in range(256):\n    os.write(1, chunk)\n7"
        answer = await session.call(raw)
        assert answer.truncated and answer.value == "7", answer
        assert len(answer.stdout) <= limits.output_bytes
        assert (await session.call("print('small')")).stdout == "small\n"


async def test_a_huge_value_or_traceback_is_cut_too() -> None:
    limits = SandboxLimits(output_bytes=4096)
    async with Session(limits) as session:
        answer = await session.call("'v' * 10**7")
        assert answer.truncated and answer.value is not None and len(answer.value) <= 4096
        answer = await session.call("raise ValueError('e' * 10**6)")
        assert answer.error is not None and len(answer.error) <= 4096
