"""A real `swift rlhf` GRPO run on code tasks: a dataset that mixes a code.humaneval row and a
code.repair row (made by `swift-gym dataset`, the repair row with its `tools` column), the
`swift_gym` scheduler, `--agent_template hermes`, the tests' tiny model made to write a hermes
`bash` call as its every token (`build_calling_model`): the trainer's own engine parses the
calls, each command runs in the repair episode's sandboxed workspace (the project with its bug),
and the env grades the tree at its own `max_turns` by the project's tests. The trajectory file
holds the commands, their output and the test results; the HumanEval episodes are graded too
(the tool-call text is their answer: reward 0). When the run has ended no process of any
sandbox it started is left (bubblewrap started through a marking script: tests/swift/
sandbox_marks.py).

The model's context is 4,096 positions: the repair row offers two tools (`bash`, `submit`), the
HumanEval row is one of the shortest prompts, and the command keeps its output to 3 lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import jsonl_records
import pytest
import sandbox_marks
from cli_runner import clean_environ

COMMAND = "python -m pytest -q -p no:cacheprovider 2>&1 | tail -3"
HERMES_CALL = (
    '<tool_call>\n{"name": "bash", "arguments": {"command": ' + json.dumps(COMMAND) + "}}\n"
    "</tool_call>"
)
MAX_TURNS = 2
HUMANEVAL = "HumanEval/53"
"""`add(x, y)`: the shortest prompt of the 164."""


@pytest.fixture
def marked_bwrap(bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """(environment, mark): the sandbox starts bubblewrap through a script that marks it."""
    from swift_gym.sandbox import availability

    mark = uuid.uuid4().hex
    script, _ = sandbox_marks.marked_bwrap(tmp_path, bwrap, mark)
    monkeypatch.setenv("SWIFT_GYM_BWRAP", str(script))
    availability.bubblewrap.cache_clear()
    yield {"SWIFT_GYM_BWRAP": str(script)}, mark
    availability.bubblewrap.cache_clear()


def repair_task_id() -> str:
    """A shipped task of six (one test file: a fast suite) when there is one, else the first."""
    from swift_gym_code.repair_env import tasks

    shipped = tasks()
    return next((task.id for task in shipped if task.project == "six"), shipped[0].id)


def dataset_rows(name: str, out: Path, environ: dict[str, str], *sets: str) -> list[dict]:
    """The rows `swift-gym dataset NAME -n 1 --set ...` writes (the installed command)."""
    command = [str(Path(sys.executable).with_name("swift-gym")), "dataset", name, "-n", "1"]
    for field in sets:
        command += ["--set", field]
    done = subprocess.run(
        [*command, "-o", str(out)], capture_output=True, text=True, timeout=300,
        env=clean_environ(**environ),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_grpo_on_humaneval_and_repair_rows_records_commands_output_and_test_results(
    marked_bwrap, tmp_path: Path
) -> None:
    from grpo_run import swift_rlhf
    from tiny_model import build_calling_model

    environ, mark = marked_bwrap
    environ = {**environ, "SWIFT_GYM_CODE_CACHE": str(tmp_path / "code-cache")}
    task_id = repair_task_id()
    (repair,) = dataset_rows(
        "code.repair", tmp_path / "repair.jsonl", environ,
        f"task_id={task_id}", 'tools=["bash", "submit"]', f"max_turns={MAX_TURNS}",
    )  # fmt: skip
    (humaneval,) = dataset_rows(
        "code.humaneval", tmp_path / "humaneval.jsonl", environ, f"task_id={HUMANEVAL}"
    )
    assert [tool["function"]["name"] for tool in json.loads(repair["tools"])] == ["bash", "submit"]
    assert "tools" not in humaneval  # a text env offers none
    dataset = tmp_path / "rows.jsonl"  # 2 steps of 1 prompt (2 completions): each row once
    dataset.write_text(json.dumps(humaneval) + "\n" + json.dumps(repair) + "\n")
    model = build_calling_model(tmp_path / "model", HERMES_CALL)
    trajectories = tmp_path / "trajectories"
    run_dir = swift_rlhf(
        tmp_path, dataset, "code.repair", MAX_TURNS,
        {**environ, "SWIFT_GYM_TRAJECTORIES": str(trajectories)},
        reward_funcs=("swift_gym_total",), model=model,
        args=["--agent_template", "hermes", "--max_completion_length", "2"],
    )  # fmt: skip
    assert sandbox_marks.marked(mark) == []  # the run is over: none of its sandboxes is left
    records = [r for path in trajectories.iterdir() for r in jsonl_records.records(path)]
    assert len(records) == 4  # 2 steps x 2 completions
    repairs = [record for record in records if record["env"] == "code.repair"]
    answers = [record for record in records if record["env"] == "code.humaneval"]
    assert len(repairs) == len(answers) == 2  # each row once, 2 completions each

    for record in repairs:
        assert len(record["turns"]) == MAX_TURNS and record["total_reward"] == 0.0
        assert [tool["function"]["name"] for tool in record["tools"]] == ["bash", "submit"]
        for turn in record["turns"]:  # the command the model wrote, twice a reply, and its output
            calls, results = turn["tool_calls"], turn["tool_results"]
            assert [call["name"] for call in calls] == ["bash", "bash"]
            assert all(json.loads(call["arguments"]) == {"command": COMMAND} for call in calls)
            assert all(" failed" in result["content"] for result in results), results
        graded = record["turns"][-1]["info"]  # graded at the env's max_turns, by the tests
        assert graded["task_id"] == task_id and graded["status"] == "unresolved"
        assert graded["ended_by"] == "max_turns" and graded["commands"] == 2 * MAX_TURNS
        assert graded["fail_to_pass_passed"] < graded["fail_to_pass_total"]
        assert graded["failing_tests"] and graded["metrics"]["success"] == 0.0

    for record in answers:  # graded: the call's text is no solution
        assert record["total_reward"] == 0.0 and len(record["turns"]) == 1
        info = record["turns"][0]["info"]
        assert info["task_id"] == HUMANEVAL and info["passed"] is False
    assert (run_dir / "completions.jsonl").exists()
