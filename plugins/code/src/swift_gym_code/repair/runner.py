"""Running a project's test command and reading its per-test outcomes.

A runner is anything with `run(tree, command, timeout) -> CommandResult`: this module's
HostRunner runs it bare in a subprocess (task generation), the env's sandbox runner runs the same
command inside bubblewrap. The command is a shell line run from the project's root that names
no host path (`python` is whichever interpreter the runner puts first on PATH), and its output is
read the same way on both: pytest's short summary (-rA) says `PASSED <node id>` for each test
that passed; anything else (failed, error, skipped, not collected) is not a pass."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

_SUMMARY = re.compile(r"^=+ short test summary info =+$")
_WORDS = ("PASSED", "FAILED", "ERROR", "XFAIL", "XPASS")


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None
    """None when the command ran past its time limit and was killed."""
    output: str


@dataclass(frozen=True)
class TestOutcomes:
    """What one run of a suite said: the node ids that passed, and for those that failed or
    errored, pytest's one-line reason (exception type and message, as the summary shows it)."""

    passed: frozenset[str]
    failed: dict[str, str] = field(default_factory=dict)
    timed_out: bool = False


class TestRunner(Protocol):
    def run(self, tree: Path, command: str, timeout: float) -> CommandResult:
        """Run `command` with `tree` as the working directory, stdout and stderr together."""
        ...


def read_outcomes(output: str) -> TestOutcomes:
    """The outcomes in a `pytest -rA` run's output (its short test summary section)."""
    passed: set[str] = set()
    failed: dict[str, str] = {}
    in_summary = False
    for line in output.splitlines():
        if _SUMMARY.match(line):
            in_summary = True
            continue
        if not in_summary:
            continue
        word, _, rest = line.partition(" ")
        if word not in _WORDS:
            continue
        if word == "PASSED":
            passed.add(rest)
        elif word in ("FAILED", "ERROR", "XPASS"):
            node, reason = _split_reason(rest)
            failed.setdefault(node, reason)
    return TestOutcomes(frozenset(passed), failed)


def _split_reason(rest: str) -> tuple[str, str]:
    """Split `<node id> - <reason>` where a parametrised id may itself hold ' - '."""
    at = 0
    while True:
        at = rest.find(" - ", at)
        if at < 0:
            return rest, ""
        node = rest[:at]
        if node.count("[") == node.count("]"):
            return node, rest[at + 3 :]
        at += 3


def run_tests(runner: TestRunner, tree: Path, command: str, timeout: float) -> TestOutcomes:
    result = runner.run(tree, command, timeout)
    if result.exit_code is None:
        return TestOutcomes(frozenset(), {}, timed_out=True)
    return read_outcomes(result.output)


class HostRunner:
    """Runs a test command bare on this machine, niced, in its own process group (killed whole
    at the time limit), with `python` on PATH meaning the interpreter given (one that has
    pytest)."""

    def __init__(self, python: str | os.PathLike[str], *, nice: int = 10) -> None:
        self.python = str(python)
        self.nice = nice
        self._bin = Path(tempfile.mkdtemp(prefix="swift-gym-code-bin-"))
        shim = self._bin / "python"
        shim.write_text(f'#!/bin/sh\nexec "{self.python}" "$@"\n')
        shim.chmod(0o755)

    def close(self) -> None:
        shutil.rmtree(self._bin, ignore_errors=True)

    def run(self, tree: Path, command: str, timeout: float) -> CommandResult:
        env = dict(os.environ)
        env["PATH"] = f"{self._bin}{os.pathsep}{env.get('PATH', '')}"
        for name in ("PYTHONPATH", "PYTHONSTARTUP", "PYTEST_ADDOPTS", "VIRTUAL_ENV"):
            env.pop(name, None)
        argv = ["nice", "-n", str(self.nice), "sh", "-c", command]
        process = subprocess.Popen(
            argv,
            cwd=tree,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return CommandResult(None, "")
        finally:
            # Nothing the suite started outlives it (its leader has exited or been killed).
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        return CommandResult(process.returncode, out.decode("utf-8", "replace"))
