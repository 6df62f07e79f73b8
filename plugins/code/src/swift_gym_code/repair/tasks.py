"""code.repair's task list: one JSON object a line, sorted by id, shipped as package data
(`data/tasks.jsonl`) and written by `swift-gym-code generate`. A task names its project's
pinned sdist, the bug as a patch, the tests that prove it and the statement an episode opens
with; `plant_bug` puts the project with its bug into a directory."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

from .fetch import copy_project
from .patches import apply_patch, patched_path
from .projects import project_named

TASKS_RESOURCE = "data/tasks.jsonl"


@dataclass(frozen=True)
class RepairTask:
    id: str
    project: str
    version: str
    sdist: str
    sha256: str
    test_command: str
    """The shell line, run from the project's root, that runs the whole suite (`pytest -rA`);
    read its output with runner.read_outcomes."""
    patch: str
    """The bug, a unified diff against the pristine file; the fix is its reverse."""
    FAIL_TO_PASS: tuple[str, ...]
    PASS_TO_PASS: tuple[str, ...]
    problem_statement: str
    operator: str
    """The mutation that made the bug (for statistics; never shown to the model)."""

    @property
    def changed_file(self) -> str:
        return patched_path(self.patch)

    def to_json(self) -> str:
        row = asdict(self)
        row["FAIL_TO_PASS"] = list(self.FAIL_TO_PASS)
        row["PASS_TO_PASS"] = list(self.PASS_TO_PASS)
        return json.dumps(row, sort_keys=True, ensure_ascii=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> RepairTask:
        row = json.loads(line)
        row["FAIL_TO_PASS"] = tuple(row["FAIL_TO_PASS"])
        row["PASS_TO_PASS"] = tuple(row["PASS_TO_PASS"])
        return cls(**row)


def dump_tasks(tasks: list[RepairTask]) -> str:
    """The task file's text: one task a line, sorted by id, so the same tasks give the same
    bytes."""
    return "".join(task.to_json() + "\n" for task in sorted(tasks, key=lambda t: t.id))


def write_tasks(path: str | os.PathLike[str], tasks: list[RepairTask]) -> None:
    Path(path).write_text(dump_tasks(tasks), encoding="ascii")


def read_tasks(path: str | os.PathLike[str]) -> list[RepairTask]:
    text = Path(path).read_text(encoding="ascii")
    return [RepairTask.from_json(line) for line in text.splitlines() if line.strip()]


def shipped_tasks_text() -> str:
    return (resources.files(__package__) / TASKS_RESOURCE).read_text(encoding="ascii")


def load_tasks() -> list[RepairTask]:
    """The tasks shipped with swift-gym-code, sorted by id."""
    return [RepairTask.from_json(line) for line in shipped_tasks_text().splitlines() if line]


def plant_bug(
    task: RepairTask, into: str | os.PathLike[str], cache: str | os.PathLike[str] | None = None
) -> Path:
    """Copy the task's project (fetched and hash-checked on first use) to `into`, which must not
    exist yet, and apply the bug. The fix is `apply_patch(into, task.patch, reverse=True)`."""
    project = project_named(task.project)
    if (project.version, project.sha256) != (task.version, task.sha256):
        raise ValueError(
            f"task {task.id} is for {task.project} {task.version} ({task.sha256[:12]}...), "
            f"but this swift-gym-code pins {project.version} ({project.sha256[:12]}...)"
        )
    root = copy_project(project, into, cache)
    apply_patch(root, task.patch)
    return root
