"""Grading a code.repair episode: the package's source files the model left, laid over the
pristine project in a fresh workspace, and the project's own tests run there.

Nothing else of the model's work tree is used: tests it edited, a `conftest.py`, a
`sitecustomize.py`, a `pytest.ini` or files in `~/.local` it planted stay behind in its own
sandbox. The model's code still runs inside the test process (it is the code under test), so
a program written to forge pytest's report could fool its own grade; it can reach nothing of the
host. Outcomes are read from pytest's `-rA` summary, written to a file in the grader's tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from swift_gym.sandbox import SandboxLimits, Workspace, WorkspaceError

from .repair.projects import TEST_ENV, Project
from .repair.runner import read_outcomes
from .repair.tasks import RepairTask

GRADE_SECONDS = 300.0
"""The time and CPU time a grading run of the whole suite gets (the operator's limits, raised
to this: a model's bash call gets the operator's own)."""
GRADE_MEMORY_BYTES = 2 * 1024**3
"""The memory a grading run gets at least: boltons' suite runs out of the default 512 MiB (a
MemoryError, then a thread that never ends keeps pytest alive until the time limit)."""
REPORT = ".swift_gym_pytest_report.txt"
DELETED = 'raise ImportError("this file was deleted in the work tree being graded")\n'
"""What stands in for a source file the model deleted. Removed, the tests could import the same
module from anywhere else on the path (before the workspace hid the interpreter's site-packages,
six was imported from there), and a deleted package would score as fixed."""
MAX_LISTED = 20
"""Failing tests an info lists by name (the rest are counted)."""


@dataclass(frozen=True)
class Grade:
    """Which of the task's tests passed on the model's tree."""

    fail_to_pass: tuple[str, ...]
    """FAIL_TO_PASS tests that passed (the bug is fixed for them)."""
    pass_to_pass: tuple[str, ...]
    """PASS_TO_PASS tests that passed (nothing else was broken)."""
    failing: dict[str, str] = field(default_factory=dict)
    """Task tests that did not pass, with pytest's one-line reason where it gave one."""
    error: str = ""
    """Why no outcomes could be read (the suite timed out, the grader could not start)."""

    def resolved(self, task: RepairTask) -> bool:
        return not self.error and not self.failing and len(self.fail_to_pass) == len(
            task.FAIL_TO_PASS
        ) and len(self.pass_to_pass) == len(task.PASS_TO_PASS)  # fmt: skip

    def fraction(self, task: RepairTask) -> float:
        """Partial credit: the share of FAIL_TO_PASS tests that pass, or 0.0 when any
        PASS_TO_PASS test broke (a tree where nothing was done would otherwise earn almost
        1.0, since PASS_TO_PASS is most of the suite)."""
        if self.error or len(self.pass_to_pass) < len(task.PASS_TO_PASS):
            return 0.0
        return len(self.fail_to_pass) / len(task.FAIL_TO_PASS) if task.FAIL_TO_PASS else 0.0

    def info(self, task: RepairTask) -> dict[str, object]:
        """What a reviewer reads: counts, and the failing tests by name (bounded)."""
        listed = dict(sorted(self.failing.items())[:MAX_LISTED])
        info: dict[str, object] = {
            "fail_to_pass_passed": len(self.fail_to_pass),
            "fail_to_pass_total": len(task.FAIL_TO_PASS),
            "pass_to_pass_passed": len(self.pass_to_pass),
            "pass_to_pass_total": len(task.PASS_TO_PASS),
            "failing_tests": {name: reason[:300] for name, reason in listed.items()},
        }
        if len(self.failing) > MAX_LISTED:
            info["failing_tests_not_listed"] = len(self.failing) - MAX_LISTED
        if self.error:
            info["grading_error"] = self.error
        return info


def grading_limits(limits: SandboxLimits) -> SandboxLimits:
    """The operator's limits with time raised to `GRADE_SECONDS` and memory to
    `GRADE_MEMORY_BYTES` for a whole suite."""
    seconds = max(limits.wall_seconds, GRADE_SECONDS)
    return limits.model_copy(
        update={
            "wall_seconds": seconds,
            "cpu_seconds": max(limits.cpu_seconds, seconds),
            "session_cpu_seconds": max(limits.session_cpu_seconds, seconds * 2),
            "memory_bytes": max(limits.memory_bytes, GRADE_MEMORY_BYTES),
        }
    )


async def grade(
    work: Workspace,
    task: RepairTask,
    project: Project,
    pristine: Path,
    python_paths: tuple[Path, ...],
    limits: SandboxLimits,
) -> Grade:
    """Run the task's tests on the model's source files (from `work`) over `pristine`."""
    sources: dict[str, str | None] = {}
    for path in project.sources:
        try:
            sources[path] = await read_whole(work, path)
        except WorkspaceError as error:
            if "no such file" not in str(error).lower():
                return _unread(task, f"{path} could not be read from the work tree: {error}")
            sources[path] = None  # the model deleted it: the tests say what that breaks
    grader = Workspace(
        grading_limits(limits), source=pristine, python_paths=python_paths, environment=TEST_ENV
    )
    try:
        await grader.start()
        for path, text in sources.items():
            if text is None:  # not removed: Python would import an installed copy instead
                await grader.write_file(path, DELETED)
            else:
                await grader.write_file(path, text)
        command = f"{task.test_command} > {REPORT} 2>&1"
        ran = await grader.run(command, timeout=GRADE_SECONDS)
        if ran.limit or ran.ended:
            why = ran.limit or "the grader's sandbox ended"
            return _unread(task, f"the test run stopped: the {why} limit was reached")
        report = await read_whole(grader, REPORT)
    except WorkspaceError as error:
        return _unread(task, f"the grader failed: {error}")
    finally:
        await grader.close()
    outcomes = read_outcomes(report or "")
    failing = {
        name: outcomes.failed.get(name, "did not pass (not run, skipped or not collected)")
        for name in (*task.FAIL_TO_PASS, *task.PASS_TO_PASS)
        if name not in outcomes.passed
    }
    return Grade(
        tuple(name for name in task.FAIL_TO_PASS if name in outcomes.passed),
        tuple(name for name in task.PASS_TO_PASS if name in outcomes.passed),
        failing,
    )


def _unread(task: RepairTask, why: str) -> Grade:
    failing = {name: why for name in (*task.FAIL_TO_PASS, *task.PASS_TO_PASS)}
    return Grade((), (), failing, why)


async def read_whole(workspace: Workspace, path: str) -> str:
    """A file's whole text, read a chunk of lines at a time (each answer is bounded)."""
    cap = workspace.limits.output_bytes
    parts: list[str] = []
    start = 1
    while True:
        found = await workspace.read_file(path, start, None, max_chars=cap)
        text = found.text
        if not found.truncated:
            parts.append(text)
            return "".join(parts)
        if not text:
            raise WorkspaceError(f"{path} is too large to read")
        whole, _, partial = text.rpartition("\n")
        if not whole and partial:
            raise WorkspaceError(f"{path} has a line longer than {cap:,} characters")
        parts.append(whole + "\n")
        start += whole.count("\n") + 1
