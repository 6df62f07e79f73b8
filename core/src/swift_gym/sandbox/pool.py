"""`SandboxPool`: one-shot runs from sandboxes started ahead of time.

Starting bubblewrap (namespaces, mounts) and the interpreter is most of what a one-shot
`print(1)` costs. A pool keeps `spares` sandboxes started and waiting for their code, so a run
takes one at once, and the next one starts in the background once that run is over. Each
sandbox still runs exactly one piece of code and is then killed: nothing is shared between
runs. What it saves is latency, not work: each run still pays one start, and the spares hold
memory while they wait (about 5 MB each, `benchmarks/RESULTS.md`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from .limits import SandboxLimits
from .oneshot import run_in
from .process import SandboxProcess, start
from .results import RunResult


class SandboxPool:
    """Runs code like `run`, from `spares` sandboxes started ahead. Use it in one event loop,
    and close it (or `async with SandboxPool() as pool:`): its spares are killed then."""

    def __init__(self, limits: SandboxLimits | None = None, spares: int = 1):
        if not 1 <= spares <= 64:
            raise ValueError(f"spares must be from 1 to 64, not {spares!r}")
        self.limits = limits or SandboxLimits()
        self.spares = spares
        self._ready: asyncio.Queue[asyncio.Task[SandboxProcess]] = asyncio.Queue()
        self.closed = False

    async def __aenter__(self) -> SandboxPool:
        self._fill()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    def _fill(self) -> None:
        while self._ready.qsize() < self.spares:
            self._ready.put_nowait(asyncio.ensure_future(start("run", self.limits)))

    async def run(self, code: str) -> RunResult:
        """Run `code` in a sandbox started ahead (see `swift_gym.sandbox.run`)."""
        if self.closed:
            raise RuntimeError("this pool is closed")
        self._fill()
        starting = self._ready.get_nowait()
        try:
            return await run_in(await starting, code, self.limits)
        finally:
            # the next spare starts once this run is over, not beside it: where a cgroup v1
            # host moves it into its groups, the kernel holds every fork and exit of the
            # machine meanwhile (an RCU grace period, about 10 ms), this run's exit included
            if not self.closed:
                self._fill()

    async def close(self) -> None:
        """Kill the spares. Safe to call more than once."""
        self.closed = True
        while not self._ready.empty():
            starting = self._ready.get_nowait()
            with contextlib.suppress(Exception):
                await (await starting).kill()
