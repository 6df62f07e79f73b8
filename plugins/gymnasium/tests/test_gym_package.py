"""The installed distribution, as a new process sees it: listing, making, `swift-gym eval`."""

from __future__ import annotations

import json
import re
from importlib.metadata import distribution, entry_points

import pytest
from cli_runner import python_json, run

import swift_gym_gymnasium
from swift_gym_gymnasium.ids import ENV_CLASSES, ENV_NAMES, GYM_IDS


def swift_gym_command(*args, cwd):
    return run(*args, cwd=cwd, drop=("PYTHONPATH",), timeout=120)


LIST = """
import json, sys, swift_gym
specs = [[s.name, s.distribution, s.target, s.description] for s in swift_gym.list_envs()]
loaded = sorted(m for m in sys.modules if m.startswith(("gymnasium", "swift_gym_gymnasium.")))
print(json.dumps({"specs": specs, "loaded": loaded}))
"""


def test_listing_finds_every_env_and_imports_nothing_of_gymnasium(tmp_path):
    found = python_json(LIST, tmp_path)
    ours = [spec for spec in found["specs"] if spec[1] == "swift-gym-gymnasium"]
    assert [spec[0] for spec in ours] == sorted(ENV_NAMES)
    for name, _, target, description in ours:
        assert target == ENV_CLASSES[name.removeprefix("gymnasium.")]
        assert description.startswith("Gymnasium ")
    assert found["loaded"] == ["swift_gym_gymnasium.ids", "swift_gym_gymnasium.plugin"]


MAKE_AND_PLAY = """
import asyncio, json, swift_gym
async def main():
    out = {}
    for name in NAMES:
        env = swift_gym.make({"name": name, "seed": 0})
        observation, info, system_prompt = await env.reset()
        step = await env.step([{"role": "assistant", "content": env.oracle_reply()}])
        out[name] = [type(env).__name__, info["status"], step[3]["status"] != "invalid_action"]
    return out
print(json.dumps(asyncio.run(main())))
"""


def test_a_new_process_makes_and_plays_every_env(tmp_path):
    found = python_json(f"NAMES = {list(ENV_NAMES)!r}\n{MAKE_AND_PLAY}", tmp_path)
    assert set(found) == set(ENV_NAMES)
    for name, (class_name, status, valid) in found.items():
        assert class_name == ENV_CLASSES[name.removeprefix("gymnasium.")].rpartition(":")[2]
        assert (status, valid) == ("reset", True)


def test_the_hook_plugin_is_declared_and_loads():
    (entry_point,) = [
        ep for ep in entry_points(group="swift_gym.plugins") if ep.value.startswith("swift_gym_g")
    ]
    assert entry_point.value == "swift_gym_gymnasium.plugin"
    dist = distribution("swift-gym-gymnasium")
    assert dist.version == swift_gym_gymnasium.__version__
    requires = dist.requires or []
    assert any(r.startswith("gymnasium") for r in requires)
    assert any(r.startswith("swift-gym") for r in requires)
    assert len(GYM_IDS) == len(set(GYM_IDS)) == 6
    from swift_gym.registry import default_registry

    registry = default_registry()
    assert not [p for p in registry.problems if "gymnasium" in p]


@pytest.mark.parametrize(
    ("name", "sets"),
    [
        ("gymnasium.Taxi-v4", []),
        ("gymnasium.CliffWalking-v1", []),
        ("gymnasium.FrozenLake-v1", ["--set", "is_slippery=false"]),
        ("gymnasium.FrozenLake8x8-v1", ["--set", "is_slippery=false"]),
    ],
)
def test_eval_oracle_succeeds_always_where_it_is_exact(name, sets, tmp_path):
    out = tmp_path / "oracle.jsonl"
    args = ["eval", name, "--policy", "oracle", "-n", "8", "--max-turns", "200", *sets]
    result = swift_gym_command(*args, "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 8 and all(record["success"] for record in records)
    assert re.search(r"success rate +1\.000 +8 of 8", result.stdout), result.stdout


@pytest.mark.parametrize("name", ENV_NAMES)
def test_eval_random_plays(name, tmp_path):
    out = tmp_path / "random.jsonl"
    args = ["eval", name, "--policy", "random", "-n", "10", "--max-turns", "20", "-o", str(out)]
    result = swift_gym_command(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 10 and all(record["status"] != "error" for record in records)
    assert all(turn["valid_action"] for record in records for turn in record["turns"])
    if name == "gymnasium.Blackjack-v1":
        assert {record["status"] for record in records} <= {"win", "draw", "loss", "bust"}
