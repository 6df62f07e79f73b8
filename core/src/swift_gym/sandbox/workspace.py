"""`Workspace`: a sandbox holding a writable work tree for a whole episode, and commands in it.

What a command sees is today's sandbox (`command.py`: every namespace new, no network, the
seccomp filter, no capabilities, the same limits), plus what the env's code chose, never a row:

- `/work`: a tmpfs of `work_bytes`, the command's directory and HOME, holding a copy of
  `source` (a host directory mounted read-only at `/.swift_gym/source` and copied in by the
  server at start, so the host's copy can never change); `/tmp`, a second tmpfs of `work_bytes`;
- `python` and `python3` on PATH (`/.swift_gym/bin`): the host's base interpreter, with the
  standard library, and on PYTHONPATH the `python_paths` the env mounts read-only at
  `/.swift_gym/path/N` (pytest's install directory, say); PYTHONDONTWRITEBYTECODE is set, so
  no stale `.pyc` runs after an edit;
- `bash` (else `sh`) runs each command in `/work`, in a session of its own, with its stdout and
  stderr on one pipe (`output_bytes` kept: the first and last halves).

Nothing a command starts outlives its call: the server inside (`inside_workspace.py`, PID 1 of
the sandbox's PID namespace) kills every other process of the namespace after each command,
and between calls the sandbox is paused (`SandboxProcess.pause`). A call past its time kills
the command's processes and says so; the files stay. When the server itself dies (a memory
limit, its CPU budget), the workspace has ended: its files are gone, and each later call says so.

For grading, the env (not the model) calls `write_file` from the host to restore the test files
the model must not change, then `run`s its hidden test command with a `timeout` of its own. The
tests then run beside whatever the model left in the tree (a `conftest.py`, a `sitecustomize`):
write or remove every file the test command reads that the model could have planted.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import secrets
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SwiftGymError
from .command import ENV, LIB, WORK, interpreter
from .limits import SandboxLimits
from .output import BoundedOutput
from .process import SandboxProcess, kill_and_drain, start

SOURCE = f"{LIB}/source"
BIN = f"{LIB}/bin"
PATHS = f"{LIB}/path"
MAX_TEXT_CHARS = 16 * 1024 * 1024
"""A command, or a file written from the host, longer than this is refused unsent."""
GRACE_SECONDS = 5.0
"""How long past a command's time limit the host waits for the server's answer before it ends
the workspace (the server kills the command itself at its limit)."""


class WorkspaceError(SwiftGymError):
    """A file operation that could not be done (no such file, zero or several matches, the work
    tree full), or a workspace that has ended. The message is for the model to read."""


@dataclass(frozen=True)
class CommandResult:
    """One command: its `output` (stdout and stderr together, bounded; a cut is marked in it),
    its `exit_code` (None when a limit stopped it), `limit` (`wall time`, `CPU time`, `memory`,
    `output size`, `file size`, or "" when none did), `truncated` when output was cut, and
    `ended` when the workspace ended with it (its files are gone)."""

    output: str
    exit_code: int | None
    limit: str = ""
    truncated: bool = False
    ended: bool = False

    @property
    def timed_out(self) -> bool:
        return self.limit == "wall time"


@dataclass(frozen=True)
class FileText:
    """Lines `first_line` to `last_line` (from 1) of a file of `total_lines`, as text (invalid
    UTF-8 replaced); `truncated` when the text was cut to the limit."""

    text: str
    first_line: int
    last_line: int
    total_lines: int
    truncated: bool = False


class Workspace:
    """A work tree in a sandbox for one episode. `await ws.start()` (or the first call starts
    it) and always `await ws.close()`, or `async with Workspace(...) as ws:`.

    `source`: a host directory copied into `/work` at start; `python_paths`: host directories
    mounted read-only and put on PYTHONPATH; `environment`: more variables for every command
    (`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1` where pytest's directory holds plugins not mounted). All
    are the env's or the operator's choice, never a row's. Calls run one at a time; the whole
    process tree is gone when `close()` returns.
    """

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        source: str | os.PathLike[str] | None = None,
        python_paths: tuple[str | os.PathLike[str], ...] | list[str | os.PathLike[str]] = (),
        environment: Mapping[str, str] | None = None,
    ):
        self.limits = limits or SandboxLimits()
        if self.limits.backend != "bubblewrap":
            raise ValueError("a Workspace runs in bubblewrap only (backend='bubblewrap')")
        self.source = _directory(source, "source") if source is not None else None
        self.python_paths = tuple(_directory(path, "python_paths") for path in python_paths)
        self.environment = dict(environment or {})
        for name, value in self.environment.items():
            if not name or "=" in name or "\0" in name + value:
                raise ValueError(f"environment: {name[:100]!r} cannot be a variable's name")
        self._sandbox: SandboxProcess | None = None
        self._stderr: BoundedOutput | None = None
        self._draining: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.ended = ""
        """Why the workspace ended ("" while it runs or before it starts)."""
        self.closed = False
        self.commands = 0

    async def __aenter__(self) -> Workspace:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    @property
    def running(self) -> bool:
        return self._sandbox is not None

    def bubblewrap_options(self) -> list[str]:
        """The mounts and variables a workspace adds to the sandbox's (`command.bwrap_argv`)."""
        executable, _ = interpreter()
        options = ["--dir", BIN]
        for name in ("python", "python3"):
            options += ["--symlink", executable, f"{BIN}/{name}"]
        if self.source is not None:
            options += ["--ro-bind", str(self.source), SOURCE]
        inside = []
        for index, path in enumerate(self.python_paths):
            options += ["--ro-bind", str(path), f"{PATHS}/{index}"]
            inside.append(f"{PATHS}/{index}")
        for hidden in site_packages():  # `python` here: the standard library and the paths above
            options += ["--size", "4096", "--tmpfs", hidden, "--remount-ro", hidden]
        options += ["--size", str(self.limits.work_bytes), "--tmpfs", "/tmp"]
        options += ["--setenv", "PATH", f"{BIN}:{ENV['PATH']}", "--setenv", "TMPDIR", "/tmp"]
        # a .pyc is checked by its source's mtime in seconds and size: an edit of the same size
        # within the second a test run cached the module (a flipped `<`) would run the old code
        options += ["--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
        if inside:
            options += ["--setenv", "PYTHONPATH", ":".join(inside)]
        for name, value in self.environment.items():
            options += ["--setenv", name, value]
        return options

    async def start(self) -> None:
        """Start the sandbox and copy the source in. Raises SandboxUnavailableError (the
        operator's to fix) or WorkspaceError (the source does not fit in `work_bytes`)."""
        async with self._lock:
            await self._start()

    async def _start(self) -> None:
        if self.closed:
            raise WorkspaceError("this workspace is closed")
        if self.ended:
            raise WorkspaceError(self.ended)
        if self._sandbox is not None:
            return
        read_limit = 8 * self.limits.output_bytes + 65_536  # JSON-escaped text, at most 6x
        sandbox = await start("workspace", self.limits, read_limit, self.bubblewrap_options())
        self._sandbox = sandbox
        self._stderr = BoundedOutput(self.limits.output_bytes)
        assert sandbox.process.stderr is not None
        self._draining = asyncio.ensure_future(self._stderr.drain(sandbox.process.stderr))
        answer = await self._exchange({"op": "setup"}, 60.0)
        if "error" in answer:
            await self._end(str(answer["error"]))
            raise WorkspaceError(self.ended)

    async def run(self, command: str, timeout: float | None = None) -> CommandResult:
        """Run `command` with `bash -c` in `/work`, for at most `timeout` seconds (default: the
        limits' `wall_seconds`; the env's code may give its own, e.g. for a hidden test run).

        Never raises for what the command does; every process it started is gone on return.
        """
        if len(command) > MAX_TEXT_CHARS:
            return CommandResult(f"the command is {len(command):,} characters long", None)
        wall = self.limits.wall_seconds if timeout is None else timeout
        if not 0 < wall <= 86_400:
            raise ValueError(f"timeout must be from 0 to 86400 seconds, not {timeout!r}")
        async with self._lock:
            if self.ended:
                return CommandResult(self.ended, None, ended=True)
            await self._start()
            self.commands += 1
            group = self._sandbox.group if self._sandbox is not None else None
            kills = group.oom_kills() if group is not None else 0
            request = {"op": "run", "command": command, "timeout": wall}
            answer = await self._exchange(request, wall + GRACE_SECONDS)
            if self.ended:
                return CommandResult(_text(answer.get("output")) + self.ended, None, ended=True)
            if "error" in answer:
                return CommandResult(_text(answer["error"]), None)
            limit = _text(answer.get("limit"))
            exit_code = answer.get("exit_code")
            if group is not None and group.oom_kills() > kills:
                limit, exit_code = "memory", None
            return CommandResult(
                output=_text(answer.get("output")),
                exit_code=exit_code if type(exit_code) is int and not limit else None,
                limit=limit,
                truncated=answer.get("truncated") is True,
            )

    async def read_file(
        self,
        path: str,
        start_line: int | None = None,
        end_line: int | None = None,
        *,
        max_chars: int | None = None,
    ) -> FileText:
        """Lines `start_line` to `end_line` (from 1, both included; None: from the first, to
        the last) of `path` (relative to `/work`), at most `max_chars` characters (default
        `output_bytes`). Raises WorkspaceError saying why not."""
        cap = self.limits.output_bytes if max_chars is None else max_chars
        request = {"op": "read", "path": path, "start": start_line, "end": end_line, "cap": cap}
        answer = await self._call(request)
        first, last, lines = (answer.get(key) for key in ("first", "last", "lines"))
        if not (type(first) is int and type(last) is int and type(lines) is int):
            raise WorkspaceError("the workspace's answer was not understood")
        text = _text(answer.get("text"))[:cap]
        return FileText(text, first, last, lines, answer.get("truncated") is True)

    async def write_file(self, path: str, text: str) -> None:
        """Write `text` (UTF-8) to `path`, making its folders. From the host, this is also how
        an env restores the files its hidden tests read. Raises WorkspaceError saying why not."""
        if len(text) > MAX_TEXT_CHARS:
            raise WorkspaceError(f"the text is {len(text):,} characters long")
        await self._call({"op": "write", "path": path, "text": text})

    async def edit_file(self, path: str, old: str, new: str) -> int:
        """Replace the one occurrence of `old` in `path` by `new`; returns the line it began on.
        Raises WorkspaceError when `old` occurs zero or several times (saying how many)."""
        answer = await self._call({"op": "edit", "path": path, "old": old, "new": new})
        line = answer.get("line")
        return line if type(line) is int else 0

    async def diff(self, max_chars: int | None = None) -> str:
        """The tree's changes against the source as a unified diff (`a/` the source, `b/` the
        tree; caches and `.pyc` files left out), at most `max_chars` (default `output_bytes`);
        a cut is marked at its end. Without a source, every file is new."""
        cap = self.limits.output_bytes if max_chars is None else max_chars
        answer = await self._call({"op": "diff", "cap": cap})
        text = _text(answer.get("diff"))[:cap]
        return text + ("\n[... diff cut ...]\n" if answer.get("truncated") is True else "")

    async def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        """A file operation: its answer, or WorkspaceError with the server's words."""
        async with self._lock:
            if self.ended:
                raise WorkspaceError(self.ended)
            await self._start()
            answer = await self._exchange(request, self.limits.wall_seconds + GRACE_SECONDS)
            if self.ended:
                raise WorkspaceError(self.ended)
            if "error" in answer:
                raise WorkspaceError(_text(answer["error"]))
            return answer

    async def _exchange(self, request: dict[str, Any], wait: float) -> dict[str, Any]:
        """Send one request and read its answer, the sandbox running only meanwhile. When the
        server does not answer this request in time, the workspace ends (`self.ended`)."""
        sandbox = self._sandbox
        assert sandbox is not None
        process = sandbox.process
        call_id = secrets.token_hex(8)
        line = json.dumps({**request, "id": call_id}, ensure_ascii=True) + "\n"
        try:
            sandbox.resume()
            process.stdin.write(line.encode("ascii"))
            await asyncio.wait_for(process.stdin.drain(), wait)
            answer_line = await asyncio.wait_for(process.stdout.readline(), wait)
        except asyncio.TimeoutError:
            await self._end(f"the workspace did not answer within {wait:g} s")
            return {}
        except (BrokenPipeError, ConnectionResetError):
            answer_line = b""
        except ValueError:
            await self._end("the workspace's answer was too long")
            return {}
        except asyncio.CancelledError:
            await asyncio.shield(self._end("the call was cancelled"))
            raise
        answer = _parse(answer_line)
        if answer is None or answer.get("id") != call_id:
            await self._why_ended(answer_line, sandbox)
            return {}
        sandbox.pause()
        left = answer.get("left")
        if type(left) is int and left > 0:
            await self._end(f"{left} processes of the command could not be killed")
            return answer
        return answer

    async def _why_ended(self, line: bytes, sandbox: SandboxProcess) -> None:
        code = None
        if not line:
            with contextlib.suppress(asyncio.TimeoutError):
                code = await asyncio.wait_for(sandbox.process.wait(), 1)
        oom = sandbox.group is not None and sandbox.group.out_of_memory()
        why = "its memory limit was reached" if oom else f"its server ended (status {code})"
        if line:
            why = "its server's answer was not this call's"
        await self._end(why)

    async def _end(self, why: str) -> None:
        """Kill the sandbox; every later call says `why`."""
        if not self.ended:
            self.ended = f"the workspace ended: {why}; its files are gone."
        sandbox, self._sandbox = self._sandbox, None
        draining, self._draining = self._draining, None
        await kill_and_drain(sandbox, draining)

    async def close(self) -> None:
        """End the sandbox and its whole process tree. Safe to call more than once."""
        self.closed = True
        if self._sandbox is not None or self._draining is not None:
            await self._end("it was closed")


@functools.lru_cache(maxsize=1)
def site_packages() -> tuple[str, ...]:
    """The interpreter's own site-packages folders (its install is mounted whole, so without
    this every package installed into it would be importable inside): each is covered by an
    empty read-only tmpfs in the workspace."""
    paths = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})
    found = {os.path.realpath(paths[key]) for key in ("purelib", "platlib")}
    return tuple(sorted(path for path in found if os.path.isdir(path)))


def _directory(path: str | os.PathLike[str], what: str) -> Path:
    resolved = Path(path).resolve()
    if not resolved.is_dir():
        raise ValueError(f"{what}: {str(path)[:200]!r} is not a directory")
    return resolved


def _text(value: object) -> str:
    """Text from the sandbox, made safe to pass on: a str with no lone surrogates."""
    if not isinstance(value, str):
        return ""
    return value.encode("utf-8", "replace").decode("utf-8")


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        answer = json.loads(line)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


__all__ = ["WORK", "CommandResult", "FileText", "Workspace", "WorkspaceError"]
