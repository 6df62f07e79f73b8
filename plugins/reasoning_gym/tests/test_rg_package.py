"""The installed distribution, as a new process sees it: listing, the static list against
reasoning-gym's own registry, and `swift-gym eval` through the real command."""

from __future__ import annotations

import json
import re
from importlib.metadata import distribution, entry_points

import pytest
from cli_runner import python_json, run

import swift_gym_reasoning_gym
from swift_gym_reasoning_gym.ids import (
    ENV_NAMES,
    REASONING_GYM_VERSION,
    TASKS,
    VERIFIER_SCORED,
    target,
)


def swift_gym_command(*args, cwd):
    return run(*args, cwd=cwd, drop=("PYTHONPATH",), timeout=180)


LIST = """
import json, sys, swift_gym
specs = [[s.name, s.distribution, s.target, s.description] for s in swift_gym.list_envs()]
loaded = sorted(m for m in sys.modules if m.startswith(("reasoning_gym", "swift_gym_reasoning")))
heavy = sorted(m for m in ("sympy", "matplotlib", "numpy") if m in sys.modules)
print(json.dumps({"specs": specs, "loaded": loaded, "heavy": heavy}))
"""


def test_listing_finds_every_task_and_imports_nothing_of_reasoning_gym(tmp_path):
    found = python_json(LIST, tmp_path)
    ours = [spec for spec in found["specs"] if spec[1] == "swift-gym-reasoning-gym"]
    assert [spec[0] for spec in ours] == sorted(ENV_NAMES)
    for name, _, registered, description in ours:
        assert registered == target(name.removeprefix("reasoning_gym."))
        assert description.startswith("reasoning-gym ")
    assert found["loaded"] == [
        "swift_gym_reasoning_gym",
        "swift_gym_reasoning_gym.ids",
        "swift_gym_reasoning_gym.plugin",
    ]
    assert found["heavy"] == []


def test_the_static_list_is_reasoning_gyms_registry():
    import reasoning_gym
    from reasoning_gym.factory import DATASETS

    assert reasoning_gym.__version__  # 0.1.25 reports "0.1.19" here: the pin is the metadata's
    assert distribution("reasoning-gym").version == REASONING_GYM_VERSION
    assert sorted(TASKS) == sorted(DATASETS) and len(TASKS) == 106
    for task, category in TASKS.items():
        module = DATASETS[task][0].__module__.split(".")
        assert category == (module[1] if len(module) >= 3 else "other")


def test_the_verifier_scored_tasks_are_exactly_those_without_stored_answers():
    import reasoning_gym

    none = set()
    for task in TASKS:
        if task == "composite":
            continue
        dataset = reasoning_gym.create_dataset(task, seed=0, size=3)
        if any(dataset[index]["answer"] is None for index in range(3)):
            none.add(task)
    assert none == VERIFIER_SCORED


def test_the_hook_plugin_is_declared_and_loads():
    (entry_point,) = [
        ep for ep in entry_points(group="swift_gym.plugins") if ep.value.startswith("swift_gym_r")
    ]
    assert entry_point.value == "swift_gym_reasoning_gym.plugin"
    dist = distribution("swift-gym-reasoning-gym")
    assert dist.version == swift_gym_reasoning_gym.__version__
    assert any(r.startswith("reasoning-gym") for r in dist.requires or [])
    from swift_gym.registry import default_registry

    assert not [p for p in default_registry().problems if "reasoning" in p]


def test_swift_gym_list_with_a_glob(tmp_path):
    result = swift_gym_command("list", "reasoning_gym.*", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert all(name in result.stdout for name in ENV_NAMES)


@pytest.mark.parametrize(
    ("task", "sets"),
    [
        ("chain_sum", []),
        ("sudoku", []),
        ("arc_1d", ["--set", "attempts=3"]),
        ("word_sorting", ["--set", "transformation=uppercase"]),
        ("knights_knaves", []),
        ("tower_of_hanoi", []),
    ],
)
def test_eval_oracle_succeeds_always_where_it_is_exact(task, sets, tmp_path):
    out = tmp_path / "oracle.jsonl"
    args = ["eval", f"reasoning_gym.{task}", "--policy", "oracle", "-n", "6", *sets]
    result = swift_gym_command(*args, "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6 and all(record["success"] for record in records)
    assert len({record["seed"] for record in records}) == 6
    assert re.search(r"success rate +1\.000 +6 of 6", result.stdout), result.stdout


def test_eval_of_a_verifier_scored_task_says_it_has_no_oracle_and_plays_random(tmp_path):
    result = swift_gym_command("eval", "reasoning_gym.rush_hour", "--policy", "oracle", "-n", "2",
                               cwd=tmp_path)  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "has no oracle policy: RushHourEnv does not define oracle_reply()" in result.stderr
    out = tmp_path / "random.jsonl"
    result = swift_gym_command(
        "eval", "reasoning_gym.rush_hour", "--policy", "random", "-n", "4", "-o", str(out),
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4 and all(record["status"] != "error" for record in records)


def test_eval_json_stays_json_though_bf_prints_while_making_items(tmp_path):
    """reasoning-gym's bf compiler prints progress dots on stdout."""
    result = swift_gym_command(
        "eval", "reasoning_gym.bf", "--policy", "oracle", "-n", "3", "--json", cwd=tmp_path
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["success_rate"] == 1.0
