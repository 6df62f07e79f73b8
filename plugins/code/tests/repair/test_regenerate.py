"""`swift-gym-code generate` remakes the shipped tasks byte for byte: here in its cut-down form,
one small project and two tasks, which must be exactly the shipped file's first two tasks of
that project in candidate order (a smaller --limit gives a prefix of the same decisions).

Needs PyPI (or the operator's index) to fetch toolz's pinned sdist into a fresh cache, and
pytest in this interpreter to run its suite."""

from __future__ import annotations

import sys

from swift_gym_code.cli import main
from swift_gym_code.repair.patches import apply_patch
from swift_gym_code.repair.runner import HostRunner, run_tests
from swift_gym_code.repair.tasks import plant_bug, read_tasks, shipped_tasks_text


def test_generate_remakes_shipped_tasks_identically(tmp_path, capsys):
    out = tmp_path / "tasks.jsonl"
    code = main(
        [
            "generate",
            "--project",
            "toolz",
            "--limit",
            "2",
            "-o",
            str(out),
            "--cache",
            str(tmp_path / "cache"),
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert "2 tasks written" in capsys.readouterr().out
    made = out.read_text(encoding="ascii").splitlines()
    assert len(made) == 2
    shipped = set(shipped_tasks_text().splitlines())
    for line in made:
        assert line in shipped
    assert {task.project for task in read_tasks(out)} == {"toolz"}

    # What the env does with a task: plant the bug in a fresh tree, run the task's command,
    # read the outcomes; the fix (the patch reversed) makes every listed test pass.
    task = read_tasks(out)[0]
    tree = plant_bug(task, tmp_path / "work", tmp_path / "cache")
    runner = HostRunner(sys.executable)
    try:
        broken = run_tests(runner, tree, task.test_command, 300)
        apply_patch(tree, task.patch, reverse=True)
        fixed = run_tests(runner, tree, task.test_command, 300)
    finally:
        runner.close()
    assert not set(task.FAIL_TO_PASS) & broken.passed
    assert set(task.PASS_TO_PASS) <= broken.passed
    assert set(task.FAIL_TO_PASS) | set(task.PASS_TO_PASS) <= fixed.passed
