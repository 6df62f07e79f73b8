"""The host directories a code.repair episode's workspaces are copied from: a task's project
with its bug planted (the model's work tree), and the pristine project (the grader's), both in
the operator's cache (`SWIFT_GYM_CODE_CACHE`) and made once.

Each is read-only to the sandbox (the workspace copies it in from a read-only mount), so no
episode can change what the next one starts from."""

from __future__ import annotations

import os
from pathlib import Path

from .repair.fetch import cache_dir, unpacked_source
from .repair.made_once import made_once
from .repair.projects import Project, project_named
from .repair.tasks import RepairTask, plant_bug


def pristine_tree(task: RepairTask, cache: str | os.PathLike[str] | None = None) -> Path:
    """The task's project as its sdist holds it (fetched and hash-checked on first use)."""
    return unpacked_source(project_of(task), cache)


def buggy_tree(task: RepairTask, cache: str | os.PathLike[str] | None = None) -> Path:
    """The task's project with its bug: made on first use (into a temporary folder, then moved
    into place, so a half-made tree is never used), kept for the episodes after."""
    root = cache_dir(cache) / "tasks" / _safe(task.id)
    return made_once(root, lambda scratch: plant_bug(task, scratch / "tree", cache))


def project_of(task: RepairTask) -> Project:
    return project_named(task.project)


def _safe(task_id: str) -> str:
    """A task id as a folder name (ids are shipped data, but a folder name is checked anyway)."""
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in task_id)
    if not name.strip("."):
        raise ValueError(f"task id {task_id!r} makes no folder name")
    return name
