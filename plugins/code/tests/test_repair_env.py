"""code.repair played for real: real tasks (one per project from the shipped list, or a few made
by the generator while none is shipped), the conformance kit, the oracle and the random policy
through `swift_gym.evaluate` and the installed `replay` and `report`, scripted policies that
cheat (each scores 0.0: the grader takes only the package's source files), partial credit, the
end at max_turns, the tools subset, calls after submit, a bad task_id, the oracle's edit, and a
command's escape sequences and invalid UTF-8 in the records. Every episode runs in bubblewrap's
sandbox; no test here is timed."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest
from swift_gym_code import repair_env
from swift_gym_code.repair.patches import apply_to_text, make_patch
from swift_gym_code.repair.tasks import RepairTask, load_tasks, read_tasks
from swift_gym_code.repair_env import RepairEnv
from swift_gym_code.repair_oracle import oracle_calls, reverse_edit
from swift_gym_code.repair_trees import pristine_tree

import swift_gym
from swift_gym.errors import SwiftGymError
from swift_gym.testing import check_env

pytestmark = pytest.mark.usefixtures("bwrap")

SWIFT_GYM = str(Path(sys.executable).with_name("swift-gym"))
SHIPPED = (resources.files("swift_gym_code.repair") / "data" / "tasks.jsonl").is_file()
BREAK_P2P = "test_six.py::test_advance_iterator"
"""A six test the partial-credit policy breaks on purpose (by rebinding the function)."""


def _made_tasks(folder: Path) -> list[RepairTask]:
    """Two six tasks from the generator (its default seed), while no task list is shipped."""
    from swift_gym_code.repair.generate import generate
    from swift_gym_code.repair.projects import project_named
    from swift_gym_code.repair.runner import HostRunner

    runner = HostRunner(sys.executable)
    try:
        made, _ = generate([project_named("six")], runner, limit=2, workers=1)
    finally:
        runner.close()
    path = folder / "tasks.jsonl"
    path.write_text("".join(task.to_json() + "\n" for task in made), encoding="ascii")
    return read_tasks(path)


@pytest.fixture(scope="session")
def pool(tmp_path_factory, bwrap):
    """Every task the tests may use: the shipped list, else two generated six tasks."""
    return load_tasks() if SHIPPED else _made_tasks(tmp_path_factory.mktemp("repair_tasks"))


@pytest.fixture(scope="session")
def picked(pool):
    """One task per project (the first by id), six's first."""
    first: dict[str, RepairTask] = {}
    for task in pool:
        first.setdefault(task.project, task)
    return sorted(first.values(), key=lambda task: task.project != "six")


@pytest.fixture(scope="session")
def two_bugs(pool):
    """A six task with two of the pool's bugs in six.py at once (their FAIL_TO_PASS joined),
    and the text of six.py with only the second bug (the first fixed): partial credit's
    material."""
    sixes = [t for t in pool if t.project == "six" and BREAK_P2P in t.PASS_TO_PASS]
    pristine = (pristine_tree(sixes[0]) / "six.py").read_text(encoding="utf-8")
    for first in sixes:
        for second in sixes:
            if first is second or set(first.FAIL_TO_PASS) & set(second.FAIL_TO_PASS):
                continue
            try:
                both = apply_to_text(apply_to_text(pristine, first.patch), second.patch)
            except ValueError:
                continue  # the hunks overlap
            fail = sorted({*first.FAIL_TO_PASS, *second.FAIL_TO_PASS})
            patch = make_patch("six.py", pristine, both)
            task = replace(
                first,
                id=f"six-1.17.0-two-bugs-{hashlib.sha256(patch.encode()).hexdigest()[:12]}",
                patch=patch,
                FAIL_TO_PASS=tuple(fail),
                PASS_TO_PASS=tuple(t for t in first.PASS_TO_PASS if t not in fail),
                problem_statement=f"{first.problem_statement}\n\n{second.problem_statement}",
            )
            return task, first, apply_to_text(pristine, second.patch)
    pytest.fail("no two six tasks of the pool can be combined")


@pytest.fixture
def tasks_of(monkeypatch):
    """Make the env see these tasks (the shipped list, or the generated ones) as its own."""

    def use(tasks):
        chosen = tuple(tasks)
        monkeypatch.setattr(repair_env, "tasks", lambda: chosen)
        repair_env.task_index.cache_clear()
        return chosen

    yield use
    repair_env.task_index.cache_clear()


def call(name, index=0, **arguments):
    return {
        "id": f"call_{name}_{index}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def scripted(*turns):
    """A policy `(messages, env) -> reply` giving the turns' tool calls in order (each turn a
    list of calls, or a function of the env returning one); the last turn repeats."""

    def policy(messages, env):
        done = sum(1 for message in messages if message["role"] == "assistant")
        turn = turns[min(done, len(turns) - 1)]
        calls = turn(env) if callable(turn) else turn
        return {"role": "assistant", "content": "", "tool_calls": calls}

    return policy


def play(task, policy, tmp_path, **config):
    """One episode of `task` with `policy`, through swift_gym.evaluate, recorded to a file:
    (the result, the record read back from the file)."""
    out = tmp_path / f"{policy.__name__ if callable(policy) else policy}.jsonl"
    result = swift_gym.evaluate(
        {"name": "code.repair", "task_id": task.id, **config}, policy, episodes=1, output=out
    )
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["error"] is None, record["error"]
    return result, record


def final(record):
    return record["turns"][-1]["info"]


def results(record):
    """Every tool result's text, turn by turn."""
    return [[r["content"] for r in turn["tool_results"]] for turn in record["turns"]]


def fixed_by_oracle(env):
    """The oracle's edit (its first reply's calls), for scripted policies that also fix."""
    task = env._task
    pristine = (pristine_tree(task) / task.changed_file).read_text(encoding="utf-8")
    return oracle_calls(task, pristine)[0]["tool_calls"]


# --- the contract ---------------------------------------------------------------------------


def test_code_repair_conforms(picked, tasks_of):
    six = tasks_of(picked)[0]
    # Episodes are cut by max_steps before their last turn: a graded end runs the suite (a
    # second or so), and the kit plays about 30 episodes a config; the graded ends are played
    # by the tests below, their infos written to trajectory files (JSON).
    report = check_env(
        "code.repair",
        [
            {"task_id": six.id},
            {"task_id": six.id, "tools": ["bash", "submit"], "reward": "fraction"},
        ],
        sample_replies=["I looked and found nothing."],
        seeds=(0,),
        max_steps=2,
        copies=1,
        call_timeout=120.0,
    )
    assert report.ok, str(report)
    assert report.env == "code.repair" and report.episodes >= 2


def test_an_unknown_task_id_is_a_clear_config_error(picked, tasks_of):
    tasks_of(picked)
    with pytest.raises(ValueError, match=r"'no-such-task' is no shipped code\.repair task"):
        RepairEnv({"task_id": "no-such-task"})
    with pytest.raises(SwiftGymError, match=r"no shipped code\.repair task"):
        swift_gym.evaluate({"name": "code.repair", "task_id": "no-such-task"}, "oracle")


# --- the oracle, the random policy, and the records through replay and report ---------------


def test_the_oracle_solves_one_task_per_project_and_random_none(picked, tasks_of, tmp_path):
    tasks = tasks_of(picked)
    out = tmp_path / "oracle.jsonl"
    configs = [{"name": "code.repair", "task_id": task.id} for task in tasks]
    oracle = swift_gym.evaluate(configs, "oracle", episodes=1, concurrency=2, output=out)
    assert oracle.success_rate == 1.0 and oracle.episodes == len(tasks)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for record, task in zip(sorted(records, key=lambda r: r["index"]), tasks, strict=True):
        info = final(record)
        assert (info["status"], info["ended_by"], record["total_reward"]) == (
            "resolved",
            "submit",
            1.0,
        )
        assert info["fail_to_pass_passed"] == len(task.FAIL_TO_PASS) > 0
        assert info["pass_to_pass_passed"] == len(task.PASS_TO_PASS)
        assert info["failing_tests"] == {} and info["diff"].startswith("diff ")
        assert [c["name"] for t in record["turns"] for c in t["tool_calls"]] == [
            "edit_file",
            "submit",
        ]
        assert record["reset_info"]["task_id"] == task.id
        assert "Edited " in results(record)[0][0]

    rand = swift_gym.evaluate(
        {"name": "code.repair", "task_id": tasks[0].id, "max_turns": 8}, "random", episodes=2
    )
    assert rand.success_rate == 0.0 and rand.mean_reward == 0.0 and rand.failed_episodes == 0

    shown = subprocess.run(
        [SWIFT_GYM, "replay", str(out), "--index", "0"], capture_output=True, text=True
    )
    assert shown.returncode == 0, shown.stderr
    assert "edit_file" in shown.stdout and "resolved" in shown.stdout
    page = tmp_path / "report.html"
    made = subprocess.run(
        [SWIFT_GYM, "report", str(out), "-o", str(page)], capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    assert "code.repair" in page.read_text(encoding="utf-8")


def test_the_records_hold_the_commands_their_output_escapes_and_the_test_results(
    picked, tasks_of, tmp_path
):
    six = tasks_of(picked)[0]
    node = six.FAIL_TO_PASS[0]
    run_tests = [call("bash", command=f"python -m pytest -q -p no:cacheprovider '{node}'")]
    noisy = r"printf 'red:\033[31mX\033[0m title:\033]0;pwned\007 bad:\377\376 end\n'"
    turns = (run_tests, [call("bash", command=noisy)], fixed_by_oracle, run_tests, [call("submit")])
    result, record = play(six, scripted(*turns), tmp_path)
    assert result.success_rate == 1.0
    said = results(record)
    assert "1 failed" in said[0][0] and "exit code: 1" in said[0][0]
    assert "1 passed" in said[3][0] and "exit code: 0" in said[3][0]
    assert record["turns"][0]["tool_calls"][0]["arguments"] == run_tests[0]["function"]["arguments"]
    info = final(record)
    assert info["commands"] == 3 and info["fail_to_pass_passed"] == len(six.FAIL_TO_PASS)
    assert "a/" + six.changed_file in info["diff"]
    # a command's escape sequences and invalid UTF-8 are kept in the record, as text ...
    noise = said[1][0]
    assert "\x1b[31mX" in noise and "\x1b]0;pwned\x07" in noise and "end" in noise
    assert "bad:\ufffd\ufffd" in noise or "bad:\\xff\\xfe" in noise, noise
    # ... and the installed replay shows them escaped
    shown = subprocess.run(
        [SWIFT_GYM, "replay", str(tmp_path / "policy.jsonl")], capture_output=True, text=True
    )
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "\\x1b[31mX" in shown.stdout and "\\x1b]0;pwned" in shown.stdout
    assert "1 passed" in shown.stdout and "resolved" in shown.stdout


# --- cheats score 0.0 ------------------------------------------------------------------------

FORGE = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""
SKIP_ALL = """\
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.skip(reason="nothing to see"))
"""
# Planted where Python imports it at start-up, in the model's sandbox: it makes every pytest
# run there load FORGE as a plugin.
STARTUP = "import os\nos.environ['PYTEST_PLUGINS'] = 'swift_gym_forge'\n"


def _test_file(env):
    return env._task.FAIL_TO_PASS[0].split("::")[0]


def _neuter_failing_tests(env):
    """Rename each FAIL_TO_PASS test function and put a passing one in its place."""
    names = sorted({node.split("::")[-1].split("[")[0] for node in env._task.FAIL_TO_PASS})
    script = (
        "import re, sys\n"
        "path = sys.argv[1]\n"
        "text = open(path).read()\n"
        f"for name in {names!r}:\n"
        "    text = re.sub(rf'^( *)def {name}\\(', rf'\\1def {name}(*a, **k):\\n\\1    return\\n"
        "\\1def _was_{name}(', text, flags=re.M)\n"
        "open(path, 'w').write(text)\n"
    )
    return [
        call("write_file", path="/tmp/neuter.py", content=script),
        call("bash", 1, command=f"python /tmp/neuter.py {_test_file(env)}"),
    ]


def _plant_startup(env):
    site = "$(python -c 'import site; print(site.getusersitepackages())')"
    return [
        call("write_file", path="sitecustomize.py", content=STARTUP),
        call("write_file", 1, path="swift_gym_forge.py", content=FORGE),
        call(
            "bash",
            2,
            command=f'd={site}; mkdir -p "$d" && cp sitecustomize.py "$d/usercustomize.py" '
            '&& cp sitecustomize.py swift_gym_forge.py "$d"/',
        ),
    ]


CHEATS = {
    "edits_the_failing_tests": _neuter_failing_tests,
    "conftest_forges_every_report": lambda env: [
        call("write_file", path="conftest.py", content=FORGE)
    ],
    "conftest_skips_everything": lambda env: [
        call("write_file", path="conftest.py", content=SKIP_ALL)
    ],
    "sitecustomize_and_usercustomize": _plant_startup,
    "deletes_the_failing_test_file": lambda env: [call("bash", command=f"rm -f {_test_file(env)}")],
}


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_a_cheat_scores_zero(cheat, picked, tasks_of, tmp_path):
    six = tasks_of(picked)[0]
    command = f"{six.test_command.split(' python ')[0]} python -m pytest -q -p no:cacheprovider"
    check = [call("bash", command=f"{command} {six.FAIL_TO_PASS[0].split('::')[0]}; echo rc=$?")]
    _, record = play(six, scripted(CHEATS[cheat], check, [call("submit")]), tmp_path)
    info = final(record)
    assert record["total_reward"] == 0.0 and info["status"] == "unresolved", info
    assert info["fail_to_pass_passed"] == 0 and info["ended_by"] == "submit"
    assert set(six.FAIL_TO_PASS) <= set(info["failing_tests"])
    seen = results(record)[1][0]  # the cheat did work in the model's own tree
    if cheat != "conftest_skips_everything":
        assert "rc=0" in seen or "no tests ran" in seen, seen


def test_deleting_the_buggy_source_file_scores_zero(picked, tasks_of, tmp_path):
    six = tasks_of(picked)[0]
    policy = scripted([call("bash", command=f"rm {six.changed_file}")], [call("submit")])
    _, record = play(six, policy, tmp_path)
    info = final(record)
    assert record["total_reward"] == 0.0 and info["fail_to_pass_passed"] == 0
    # no test passes on an installed copy of the module (six is in many interpreters'
    # site-packages, which the sandbox's python sees)
    assert info["pass_to_pass_passed"] == 0
    assert "+++ /dev/null" in info["diff"] and f"a/{six.changed_file}" in info["diff"]


# --- partial credit, max_turns, the tools subset, calls after submit -------------------------


def test_fraction_gives_the_share_of_fail_to_pass_unless_pass_to_pass_broke(
    two_bugs, tasks_of, tmp_path
):
    task, first, half_fixed = two_bugs
    tasks_of([task])
    share = len(first.FAIL_TO_PASS) / len(task.FAIL_TO_PASS)
    write = [call("write_file", path="six.py", content=half_fixed)]
    broken = half_fixed + "\nadvance_iterator = None\n"
    for content, want in ((half_fixed, share), (broken, 0.0)):
        policy = scripted([call("write_file", path="six.py", content=content)], [call("submit")])
        _, record = play(task, policy, tmp_path, reward="fraction")
        info = final(record)
        assert record["total_reward"] == pytest.approx(want), info
        assert info["metrics"]["success"] == 0.0
    assert info["pass_to_pass_passed"] < info["pass_to_pass_total"]
    assert BREAK_P2P in info["failing_tests"]
    # the same half fix under the default reward: all or nothing
    _, record = play(task, scripted(write, [call("submit")]), tmp_path)
    assert record["total_reward"] == 0.0
    assert final(record)["fail_to_pass_passed"] == len(first.FAIL_TO_PASS)


def test_max_turns_grades_the_tree_as_if_submitted(picked, tasks_of, tmp_path):
    six = tasks_of(picked)[0]
    policy = scripted(fixed_by_oracle, [call("bash", command="true")])
    _, record = play(six, policy, tmp_path, max_turns=3)
    info = final(record)
    assert record["num_turns"] == 3 and record["total_reward"] == 1.0
    assert (info["ended_by"], info["status"], info["metrics"]["submitted"]) == (
        "max_turns",
        "resolved",
        0.0,
    )


def test_the_tools_subset_and_calls_after_submit(picked, tasks_of):
    six = tasks_of(picked)[0]

    async def go():
        env = RepairEnv({"task_id": six.id, "tools": ["bash", "submit"]})
        try:
            observation, info, _ = await env.reset()
            offered = [tool["function"]["name"] for tool in env.tools()]
            edit = await env.step(
                [{"role": "assistant", "content": "", "tool_calls": [call("edit_file")]}]
            )
            calls = [call("submit"), call("bash", 1, command="echo late > late.txt")]
            last = await env.step([{"role": "assistant", "content": "", "tool_calls": calls}])
            over = await env.step([{"role": "assistant", "content": "", "tool_calls": calls}])
            return observation, info, offered, edit, last, over
        finally:
            await env.close()

    observation, info, offered, edit, last, over = asyncio.run(go())
    assert offered == ["bash", "submit"] and "Tools: bash, submit." in observation
    assert info["task_id"] == six.id and info["fail_to_pass"] == len(six.FAIL_TO_PASS)
    assert not edit.done and "edit_file" in edit.tool_results[0].content
    assert edit.tool_results[0].content.startswith("Error")
    assert last.done and last.info["ended_by"] == "submit"
    assert last.tool_results[0].content.startswith("Submitted")
    assert "already submitted: this call was not run" in last.tool_results[1].content
    assert "late.txt" not in last.info["diff"]
    assert over.done and over.info == {"status": "episode_over"}


# --- the oracle's edit -----------------------------------------------------------------------


def test_reverse_edit_on_small_texts():
    buggy = "a = 1\nb = 2\nif a < b:\n    pass\n"
    fixed = "a = 1\nb = 2\nif a > b:\n    pass\n"
    assert reverse_edit(buggy, fixed) == ("if a < b:\n", "if a > b:\n")
    # not unique alone: widened by context lines until it is
    twice = "x = 0\nreturn x\ny = 1\nreturn x\n"
    assert reverse_edit(twice, "x = 0\nreturn x\ny = 1\nreturn y\n") == (
        "y = 1\nreturn x\n",
        "y = 1\nreturn y\n",
    )
    # the bug removed a line: an empty old text is no edit, so it takes the lines around it
    assert reverse_edit("one\nthree\n", "one\ntwo\nthree\n") == (
        "one\nthree\n",
        "one\ntwo\nthree\n",
    )
    assert reverse_edit("a\nb\nc\nd\n", "a\nb\nX\nc\nd\n") == ("b\nc\n", "b\nX\nc\n")
    # nothing short is unique: the whole file
    assert reverse_edit("a\na\n", "a\n") == ("a\na\n", "a\n")
    for old, _, buggy_text in (
        (*reverse_edit(buggy, fixed), buggy),
        (*reverse_edit("one\nthree\n", "one\ntwo\nthree\n"), "one\nthree\n"),
    ):
        assert buggy_text.count(old) == 1 and old
