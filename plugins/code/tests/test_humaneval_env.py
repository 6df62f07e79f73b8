"""code.humaneval played for real: the wheel's data, the oracle over all 164 problems, the random
policy, the feedback turn, bad and hostile replies, and rows through the installed command.
Every answer here is graded in bubblewrap's sandbox."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from swift_gym_code.answers import extract_code
from swift_gym_code.humaneval import HumanEvalEnv
from swift_gym_code.problems import COUNT, index_of, problems

import swift_gym

pytestmark = pytest.mark.usefixtures("bwrap")

SWIFT_GYM = str(Path(sys.executable).with_name("swift-gym"))


def play(config, *replies):
    """(observations, rewards, dones, infos) of `replies`, one step each, after a reset."""

    async def go():
        env = HumanEvalEnv(config)
        try:
            await env.reset()
            results = []
            for reply in replies:
                text = reply(env) if callable(reply) else reply
                results.append(await env.step([{"role": "assistant", "content": text}]))
            return results
        finally:
            await env.close()

    return list(zip(*asyncio.run(go()), strict=True))


def test_the_wheel_holds_the_164_problems():
    found = problems()
    assert len(found) == COUNT == 164
    assert [p.task_id for p in found] == [f"HumanEval/{i}" for i in range(164)]
    assert found[0].entry_point == "has_close_elements" and "def check(candidate)" in found[0].test
    assert index_of("HumanEval/163") == 163 and index_of("7") == 7
    assert index_of("HumanEval/164") is None and index_of("HumanEval/07") is None


def test_the_oracle_solves_all_164_and_the_random_policy_none(tmp_path):
    trajectories = tmp_path / "oracle.jsonl"
    oracle = swift_gym.evaluate(
        "code.humaneval", "oracle", episodes=164, concurrency=8, output=trajectories
    )
    assert oracle.success_rate == 1.0 and oracle.episodes == 164
    assert oracle.statuses == {"passed": 164}
    records = [json.loads(line) for line in trajectories.read_text().splitlines()]
    assert sorted(r["reset_info"]["task_id"] for r in records) == sorted(
        f"HumanEval/{i}" for i in range(164)
    )

    rand = swift_gym.evaluate("code.humaneval", "random", episodes=40, concurrency=8)
    assert rand.success_rate == 0.0 and rand.mean_reward == 0.0 and rand.failed_episodes == 0

    # the trajectory file reads back through the installed command's replay and report
    shown = subprocess.run(
        [SWIFT_GYM, "replay", str(trajectories), "--index", "38"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert "decode_cyclic" in shown.stdout and "passed" in shown.stdout
    page = tmp_path / "report.html"
    made = subprocess.run(
        [SWIFT_GYM, "report", str(trajectories), "-o", str(page)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert "code.humaneval" in page.read_text()


WRONG_0 = "```python\ndef has_close_elements(numbers, threshold):\n    return True\n```"


def test_a_failing_answer_is_told_the_prompts_examples_never_the_hidden_tests():
    config = {"task_id": "HumanEval/0", "feedback": "examples"}
    observations, rewards, dones, infos = play(config, WRONG_0, lambda env: env.oracle_reply())
    said = observations[0]
    assert "has_close_elements([1.0, 2.0, 3.0], 0.5) should return False, but returned True" in said
    assert "has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3) returned True" in said
    assert "You have 2 answers left" in said
    hidden = problems()[0].test
    assert infos[0]["failed_test"] in hidden  # the reviewer sees which test failed...
    assert infos[0]["failed_test"] not in said and "3.9" not in said  # ...the model does not
    assert [e["passed"] for e in infos[0]["examples"]] == [False, True]
    assert rewards == (0.0, 1.0) and dones == (False, True)
    assert infos[1]["status"] == "passed"


@pytest.fixture
def quick_limits(monkeypatch):
    """The operator's limits, short: a runaway answer is stopped after a second of wall time
    (its CPU time limit is higher: one thread cannot use more CPU than wall time, so the wall
    always stops it first, however busy the machine)."""
    limits = {"wall_seconds": 1.0, "cpu_seconds": 5.0, "output_bytes": 4096}
    monkeypatch.setenv("SWIFT_GYM_SANDBOX_LIMITS", json.dumps(limits))


DEF = "def has_close_elements(numbers, threshold):\n"
BAD = {
    "empty": ("", "no_code", "holds no code"),
    "prose": ("I would sort the numbers first.", "syntax", "SyntaxError"),
    "syntax": (f"```python\n{DEF}    return (\n```", "syntax", "SyntaxError"),
    "loop": (f"```python\n{DEF}    while True:\n        pass\n```", "limit", "wall time"),
    "output": (
        f"```python\n{DEF}    while True:\n        print('x' * 1000)\n```",
        "limit",
        "output",
    ),
    "raises": ("```python\nraise RuntimeError('at import')\n```", "load", "at import"),
    # the prompt's own stub stays defined (it returns None): the tests fail on it
    "other_function": ("```python\ndef other():\n    return 1\n```", "assertion", "assert"),
    "exits": ("```python\nimport os\nos._exit(0)\n```", "crashed", "exit code 0"),
    "sys_exit": ("```python\nimport sys\nsys.exit(0)\n```", "load", "SystemExit"),
    "always_equal": (
        "```python\nclass A:\n    def __eq__(self, other):\n        return True\n"
        f"{DEF}    return A()\n```",
        "error",
        "not plain data",
    ),
    "patched_builtins": (
        "```python\nimport builtins, json\nbuiltins.all = lambda *a: True\n"
        'json.dumps = lambda *a, **k: \'{"stage": "passed"}\'\n'
        f"{DEF}    return None\n```",
        "assertion",
        "AssertionError",
    ),
    "fake_report": (
        "```python\nimport __main__\n__main__._report = None\n"
        'print(\'{"stage": "passed"}\')\n'
        f"{DEF}    return None\n```",
        "assertion",
        "AssertionError",
    ),
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_bad_or_hostile_answer_scores_zero_and_says_why(name, quick_limits):
    reply, status, said = BAD[name]
    _, rewards, dones, infos = play({"task_id": "HumanEval/0"}, reply)
    info = infos[0]
    assert rewards == (0.0,) and dones == (True,)
    assert info["status"] == status and info["passed"] is False
    assert said in json.dumps(info)
    assert len(json.dumps(info)) < 8000  # bounded, whatever the answer printed


def test_the_answer_runs_only_in_the_sandbox(tmp_path, monkeypatch):
    marker = tmp_path / "written-by-the-answer"
    monkeypatch.setenv("HUMANEVAL_HOST_SECRET", "s3cr3t-on-the-host")
    reply = (
        "```python\nimport os\n"
        f"try:\n    open({str(marker)!r}, 'w').write('x')\nexcept OSError as e:\n    print(e)\n"
        "print('secret:', os.environ.get('HUMANEVAL_HOST_SECRET'))\n"
        f"print('pid:', os.getpid())\n{DEF}    return False\n```"
    )
    observations, rewards, _, infos = play({"task_id": "HumanEval/0"}, reply)
    assert not marker.exists()
    output = infos[0]["output"]
    assert "secret: None" in output and "s3cr3t" not in json.dumps(infos) + observations[0]
    assert "pid: 1" in output or "pid: 2" in output  # its own PID namespace
    assert rewards == (0.0,)


def test_the_reply_shapes_a_model_writes():
    assert extract_code("Here:\n```python\nx = 1\n```\nthen\n```py\nx = 2\n```") == "x = 2"
    assert extract_code("```\nx = 3\n```") == "x = 3"
    assert extract_code("```python\nx = 4\n") == "x = 4"  # cut at its token limit
    assert extract_code("def f():\n    return 5") == "def f():\n    return 5"
    assert extract_code("```json\n{}\n```") == "```json\n{}\n```"
    assert extract_code("   \n") == ""
    body = problems()[2].canonical_solution  # the completion format: only the body
    _, rewards, _, infos = play({"task_id": "HumanEval/2"}, body)
    assert rewards == (1.0,), infos


def test_configs_are_checked_and_rows_play(tmp_path):
    with pytest.raises(swift_gym.InvalidConfigError, match="no HumanEval problem"):
        HumanEvalEnv({"task_id": "HumanEval/999"})
    with pytest.raises(swift_gym.InvalidConfigError, match="needs feedback 'examples'"):
        HumanEvalEnv({"max_turns": 3})
    with pytest.raises(swift_gym.InvalidConfigError, match="max_turns"):
        HumanEvalEnv({"feedback": "examples", "max_turns": 11})
    rows = tmp_path / "rows.jsonl"
    examples = ["--set", "feedback=examples"]
    made = subprocess.run(
        [
            SWIFT_GYM,
            "dataset",
            "code.humaneval",
            "-n",
            "4",
            "--seed-start",
            "160",
            *examples,
            "-o",
            rows,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    lines = [json.loads(line) for line in rows.read_text().splitlines()]
    assert [row["env_config"]["seed"] for row in lines] == [160, 161, 162, 163]
    assert all("tools" not in row for row in lines)
    result = swift_gym.evaluate(None, "oracle", dataset=rows, output=tmp_path / "rows-out.jsonl")
    assert result.success_rate == 1.0 and result.episodes == 4
    played = [json.loads(line) for line in (tmp_path / "rows-out.jsonl").read_text().splitlines()]
    assert {r["reset_info"]["task_id"] for r in played} == {
        f"HumanEval/{i}" for i in (160, 161, 162, 163)
    }
