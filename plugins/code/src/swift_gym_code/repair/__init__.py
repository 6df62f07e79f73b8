"""Repository repair tasks: bugs injected into real projects by AST mutation, each kept only
when the project's own tests prove it (some fail with it and pass without, the rest pass both
ways).

What an env needs, in the order it needs it:

- `load_tasks()`: the shipped tasks (`RepairTask`: id, project, version, sdist, sha256,
  test_command, patch, FAIL_TO_PASS, PASS_TO_PASS, problem_statement, operator).
- `plant_bug(task, into, cache=None)`: the project's pristine tree (its pinned sdist fetched with
  pip into the operator's cache on first use, sha256-checked, unpacked once) copied to `into`,
  with the bug applied. `apply_patch(into, task.patch, reverse=True)` is the fix (the oracle's
  edit); `apply_to_text` does the same on one file's text.
- `task.test_command`: a shell line run from the tree's root, `python` on PATH having pytest;
  it names no host path. `read_outcomes(output)` reads its per-test results by node id;
  `run_tests(runner, tree, command, timeout)` does both with any `TestRunner` (`HostRunner`
  runs it bare; a sandboxed runner only needs the same `run` method).

How tasks are made: `generate` (and `swift-gym-code generate`); the pins: `projects`."""

from .fetch import FetchError, SdistHashError, copy_project, unpacked_source
from .patches import PatchError, apply_patch, apply_to_text
from .projects import PROJECTS, Project, project_named
from .runner import CommandResult, HostRunner, TestOutcomes, TestRunner, read_outcomes, run_tests
from .tasks import RepairTask, load_tasks, plant_bug

__all__ = [
    "PROJECTS",
    "CommandResult",
    "FetchError",
    "HostRunner",
    "PatchError",
    "Project",
    "RepairTask",
    "SdistHashError",
    "TestOutcomes",
    "TestRunner",
    "apply_patch",
    "apply_to_text",
    "copy_project",
    "load_tasks",
    "plant_bug",
    "project_named",
    "read_outcomes",
    "run_tests",
    "unpacked_source",
]
