"""`run(code)`: run Python code once in a fresh sandbox and return what happened."""

from __future__ import annotations

import asyncio
import contextlib
import signal

from .limits import SandboxLimits
from .output import BoundedOutput
from .process import SandboxProcess, start
from .results import RunResult

_SIGNAL_LIMITS = {signal.SIGXCPU: "CPU time", signal.SIGXFSZ: "file size"}


def limit_of(exit_code: int | None) -> str:
    """The limit a kernel signal stands for (bwrap reports a signal as 128 + its number)."""
    if exit_code is None:
        return ""
    number = -exit_code if exit_code < 0 else exit_code - 128
    return next((name for sig, name in _SIGNAL_LIMITS.items() if sig == number), "")


async def run(code: str, limits: SandboxLimits | None = None) -> RunResult:
    """Run `code` (Python source) as `__main__` in a new sandbox under `limits`.

    Output past `limits.output_bytes` (stdout and stderr each) ends the run at once and is cut;
    a run past `wall_seconds` is killed. The whole process tree is gone when this returns,
    however it ended (also when the awaiting task is cancelled).
    """
    limits = limits or SandboxLimits()
    return await run_in(await start("run", limits), code, limits)


async def run_in(sandbox: SandboxProcess, code: str, limits: SandboxLimits) -> RunResult:
    """Run `code` in `sandbox`, started in mode "run" under `limits`, and end it (see `run`)."""
    try:
        stopped: list[str] = []

        def overflow() -> None:
            stopped.append("output size")
            sandbox.kill_now()

        out = BoundedOutput(limits.output_bytes, overflow)
        err = BoundedOutput(limits.output_bytes, overflow)
        process = sandbox.process
        assert process.stdin and process.stdout and process.stderr
        stdin = process.stdin

        async def feed() -> None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                stdin.write(code.encode("utf-8", "replace"))
                await stdin.drain()
            stdin.close()

        reading = asyncio.gather(feed(), out.drain(process.stdout), err.drain(process.stderr))
        try:
            await asyncio.wait_for(asyncio.shield(reading), limits.wall_seconds)
            exit_code = await process.wait()
        except asyncio.TimeoutError:
            stopped.append("wall time")
            await sandbox.kill()
            await reading
            exit_code = None
    finally:
        await sandbox.kill()
    killed = exit_code in (-9, 128 + 9)  # the memory cgroup's limit kills with SIGKILL
    memory = "memory" if killed and sandbox.out_of_memory else ""
    limit = stopped[0] if stopped else memory or limit_of(exit_code)
    if limit:
        exit_code = None
    return RunResult(out.text(), err.text(), exit_code, limit, out.cut or err.cut)
