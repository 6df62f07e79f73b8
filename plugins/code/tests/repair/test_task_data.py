"""The shipped task list: its schema, its counts, and statements that never point at the bug."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from swift_gym_code.repair.generate import MAX_FAIL_TO_PASS
from swift_gym_code.repair.patches import apply_to_text, patched_path
from swift_gym_code.repair.projects import project_named
from swift_gym_code.repair.tasks import dump_tasks, load_tasks, shipped_tasks_text

TASKS = load_tasks()


def test_at_least_200_tasks_over_at_least_5_projects():
    per_project = Counter(task.project for task in TASKS)
    assert len(TASKS) >= 200
    assert len(per_project) >= 5
    assert min(per_project.values()) >= 20, per_project


def test_the_file_is_sorted_unique_and_stable():
    ids = [task.id for task in TASKS]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert dump_tasks(TASKS) == shipped_tasks_text()
    assert len({task.patch for task in TASKS}) == len(TASKS)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_each_task(task):
    project = project_named(task.project)
    assert (task.version, task.sdist, task.sha256) == (
        project.version,
        project.sdist,
        project.sha256,
    )
    assert task.test_command == project.test_command
    assert task.changed_file in project.sources
    assert task.id.startswith(f"{task.project}-{task.version}-")
    assert 1 <= len(task.FAIL_TO_PASS) <= MAX_FAIL_TO_PASS
    assert task.PASS_TO_PASS and not set(task.FAIL_TO_PASS) & set(task.PASS_TO_PASS)
    assert list(task.FAIL_TO_PASS) == sorted(task.FAIL_TO_PASS)
    # The statement names the failing tests, never the changed file, a line, or the patch.
    statement = task.problem_statement
    for node in task.FAIL_TO_PASS[:8]:
        assert f"`{node}`" in statement
    name = task.changed_file.rsplit("/", 1)[-1]
    assert re.search(rf"(?<![\w.]){re.escape(name)}", statement) is None
    assert re.search(r"\bline \d+|\.py:\d+", statement) is None
    for line in task.patch.splitlines():
        if line[:1] in "+-" and not line.startswith(("+++", "---")) and len(line) > 12:
            assert line[1:].strip() not in statement
    # The patch is one small edit whose reverse undoes it.
    assert patched_path(task.patch) == task.changed_file
    assert task.patch.count("\n@@ ") == 1
    start = int(re.match(r"@@ -(\d+)", task.patch.splitlines()[2]).group(1))
    hunk = [line for line in task.patch.splitlines()[3:] if line[:1] in (" ", "-")]
    before = "#\n" * (start - 1) + "".join(line[1:] + "\n" for line in hunk)
    after = apply_to_text(before, task.patch)
    assert apply_to_text(after, task.patch, reverse=True) == before
