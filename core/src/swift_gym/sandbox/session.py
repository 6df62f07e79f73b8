"""`Session`: a Python interpreter in a sandbox that keeps its variables and files between calls.

Like a notebook kernel: each `call(code)` runs in the same `__main__` namespace and the same
work directory; the value of a last expression comes back as its repr, an exception as its
traceback text. The server inside (`inside.py`, mode `repl`) answers one JSON line per call on
its stdout; the code's `print` output is captured per call inside (bounded), and what reaches
fds 1 and 2 directly (`os.write`, child processes) is drained here and added to the call's
output. A call past its wall time, or a server that dies, ends the sandbox (its whole process
tree); the next call starts a fresh one and the result said so.

Between calls nothing of the sandbox runs: every task is stopped once its call's answer is in
(`SandboxProcess.pause`), so threads and children a call left behind use no CPU and write
nothing until the next call resumes them, under that call's limits. Each request carries an id
of its own that the answer must repeat: the code can write on the answer pipe (it runs in the
server's process), but a line that is not the answer to this call ends the session instead of
being taken, late, as a later call's answer. Code can forge the answer to its own call (with
the id it finds in memory): that fools only its own episode, which it could fool by printing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from typing import Any

from .limits import SandboxLimits
from .oneshot import limit_of
from .output import BoundedOutput
from .process import SandboxProcess, kill_and_drain, start
from .results import CallResult

MAX_CODE_CHARS = 1_000_000
"""Code longer than this is refused unread."""


class Session:
    """A stateful sandboxed interpreter. Start it with `await session.start()` (or let the first
    call start it) and always `await session.close()`, or use `async with Session() as s:`.

    Calls run one at a time. The sandbox's process tree is gone when `close()` returns.
    """

    def __init__(self, limits: SandboxLimits | None = None):
        self.limits = limits or SandboxLimits()
        self._sandbox: SandboxProcess | None = None
        self._raw: BoundedOutput | None = None
        self._draining: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.calls = 0
        self.restarts = 0
        self.closed = False

    async def __aenter__(self) -> Session:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    @property
    def running(self) -> bool:
        return self._sandbox is not None

    async def start(self) -> None:
        """Start the sandbox now (a call starts it when needed). Raises SandboxUnavailableError."""
        if self.closed:
            raise RuntimeError("this session is closed")
        if self._sandbox is not None:
            return
        # the answer line holds stdout, stderr and the value (each capped), JSON-escaped
        self._sandbox = await start("repl", self.limits, 20 * self.limits.output_bytes + 65_536)
        self._raw = BoundedOutput(self.limits.output_bytes)
        stderr = self._sandbox.process.stderr
        assert stderr is not None
        self._draining = asyncio.ensure_future(self._raw.drain(stderr))

    async def call(self, code: str) -> CallResult:
        """Run `code` in the session; never raises for anything the code does."""
        async with self._lock:
            if len(code) > MAX_CODE_CHARS:
                return CallResult(
                    error=f"the code is {len(code):,} characters; at most {MAX_CODE_CHARS:,}"
                )
            if self._sandbox is None:
                await self.start()
            assert self._sandbox is not None  # start() made it, or raised
            self.calls += 1
            try:
                self._sandbox.resume()
                result = await asyncio.wait_for(self._exchange(code), self.limits.wall_seconds)
                if self._sandbox is not None:
                    self._sandbox.pause()
                return result
            except asyncio.TimeoutError:
                await self._end()
                return self._ended(
                    f"the call ran past its wall time limit of {self.limits.wall_seconds:g} s",
                    "wall time",
                )
            except asyncio.CancelledError:
                await asyncio.shield(self._end())
                raise

    async def _exchange(self, code: str) -> CallResult:
        sandbox = self._sandbox
        assert sandbox is not None and self._raw is not None
        process = sandbox.process
        assert process.stdin is not None and process.stdout is not None
        call_id = secrets.token_hex(8)
        request = json.dumps({"id": call_id, "code": code}, ensure_ascii=True) + "\n"
        try:
            process.stdin.write(request.encode("ascii"))
            await process.stdin.drain()
            line = await process.stdout.readline()
        except (BrokenPipeError, ConnectionResetError):
            line = b""
        except ValueError:  # a line past the reader's limit: not our server's answer
            await self._end()
            return self._ended("the session's answer was too long", "output size")
        answer = _parse(line)
        if answer is not None and answer.get("id") != call_id:
            await self._end()
            return self._ended("the session's answer was not this call's", "")
        if answer is None:
            exit_code = None
            with contextlib.suppress(asyncio.TimeoutError):
                exit_code = await asyncio.wait_for(process.wait(), 1)
            raw, _ = self._raw.take()
            await self._end()
            limit = "memory" if sandbox.out_of_memory else limit_of(exit_code)
            why = f"the {limit} limit was reached" if limit else "the Python process ended"
            return self._ended(f"{why} (exit status {exit_code})", limit, raw)
        await asyncio.sleep(0)  # let raw output written just before the answer arrive
        raw, raw_cut = self._raw.take()
        stdout = answer["stdout"] + raw
        cap = self.limits.output_bytes
        return CallResult(
            stdout=stdout[:cap],
            stderr=answer["stderr"],
            value=answer["value"],
            error=answer["error"],
            truncated=answer["truncated"] or raw_cut or len(stdout) > cap,
            limit="CPU time" if answer.get("limit") == "CPU time" else "",
        )

    def _ended(self, why: str, limit: str, stderr: str = "") -> CallResult:
        self.restarts += 1
        return CallResult(
            stderr=stderr,
            error=f"{why}; the session was ended: its variables and files are gone, and the "
            "next call starts a fresh one.",
            limit=limit,
            ended=True,
        )

    async def _end(self) -> None:
        sandbox, self._sandbox = self._sandbox, None
        draining, self._draining = self._draining, None
        await kill_and_drain(sandbox, draining)

    async def close(self) -> None:
        """End the sandbox and its whole process tree. Safe to call more than once."""
        self.closed = True
        await self._end()


def _parse(line: bytes) -> dict[str, Any] | None:
    """The server's answer, checked: the sandbox is untrusted, so is what it writes."""
    try:
        answer = json.loads(line)
    except ValueError:
        return None
    if not isinstance(answer, dict):
        return None
    text = ("stdout", "stderr")
    optional = ("value", "error")
    if not all(isinstance(answer.get(key), str) for key in text):
        return None
    if not all(answer.get(key) is None or isinstance(answer[key], str) for key in optional):
        return None
    if not isinstance(answer.get("truncated"), bool):
        return None
    for key in (*text, *optional):  # no lone surrogates onward: they break JSON encoders
        if isinstance(answer.get(key), str):
            answer[key] = answer[key].encode("utf-8", "replace").decode("utf-8")
    return answer
