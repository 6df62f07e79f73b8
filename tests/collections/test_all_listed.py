"""All four env packages installed together: every env is listed, and listing imports nothing.

Runs in tox's `collections` environment (core + FrozenLake, Gymnasium, reasoning-gym and
TextArena packages, real installs). Each name list comes from the package's own static ids
module (standard library only), so a new id there must show up here.
"""

from __future__ import annotations

import json

import pytest
from cli_runner import python_json, run

from swift_gym_gymnasium.ids import ENV_NAMES as GYMNASIUM
from swift_gym_reasoning_gym.ids import ENV_NAMES as REASONING_GYM
from swift_gym_textarena.ids import ENV_NAMES as TEXTARENA

EXPECTED = {
    "swift-gym": {"mcp_tools", "openenv"},
    "swift-gym-frozen-lake": {"frozen_lake", "frozen_lake_ms_swift"},
    "swift-gym-gymnasium": set(GYMNASIUM),
    "swift-gym-reasoning-gym": set(REASONING_GYM),
    "swift-gym-textarena": set(TEXTARENA),
}
LIBRARIES = ("gymnasium", "reasoning_gym", "textarena")


def test_swift_gym_list_shows_every_env_of_every_package(tmp_path):
    result = run("list", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    listed: dict[str, set[str]] = {}
    for entry in json.loads(result.stdout):
        listed.setdefault(entry["distribution"], set()).add(entry["name"])
    assert listed == EXPECTED
    assert sum(map(len, listed.values())) == 2 + 2 + 6 + 106 + 55  # core, FrozenLake, ...
    table = run("list", cwd=tmp_path).stdout
    assert all(name in table for names in EXPECTED.values() for name in names)


def test_list_group_has_one_line_per_distribution_with_its_count(tmp_path):
    result = run("list", "--group", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for dist, names in EXPECTED.items():
        (line,) = [line for line in result.stdout.splitlines() if line.startswith(dist + " ")]
        assert line.split()[2] == str(len(names)), line


def test_no_plugin_has_a_problem(tmp_path):
    result = run("plugins", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    for plugin in ("gymnasium", "reasoning_gym", "textarena"):
        assert plugin in result.stdout


def test_listing_in_a_new_process_imports_none_of_the_libraries(tmp_path):
    code = (
        "import json, sys, swift_gym\n"
        "names = [spec.name for spec in swift_gym.list_envs()]\n"
        "print(json.dumps([len(names), sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{LIBRARIES!r})]))"
    )
    count, imported = python_json(code, tmp_path)
    assert count == 171
    assert imported == []


@pytest.mark.parametrize(
    ("name", "library"),
    [
        ("gymnasium.Taxi-v4", "gymnasium"),
        ("reasoning_gym.chain_sum", "reasoning_gym"),
        ("textarena.GuessTheNumber-v0", "textarena"),
    ],
)
def test_making_an_env_imports_its_own_library_and_no_other(name, library, tmp_path):
    code = (
        "import asyncio, json, sys, swift_gym\n"
        f"env = swift_gym.make({{'name': {name!r}, 'seed': 3}})\n"
        "observation, info, system = asyncio.run(env.reset())\n"
        "print(json.dumps([bool(observation), sorted({m.split('.')[0] for m in sys.modules} & "
        f"set({LIBRARIES!r}))]))"
    )
    shown, imported = python_json(code, tmp_path)
    assert shown
    assert imported == [library]
