"""The two packages as real distributions: installed into fresh venvs, used from new processes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import Venv

pytestmark = pytest.mark.slow

LIST_ENVS = """
import json, swift_gym
print(json.dumps([[e.name, e.distribution, e.version, e.target] for e in swift_gym.list_envs()]))
"""

MAKE_SEED_0 = """
import asyncio, json, swift_gym
env = swift_gym.make({"name": "frozen_lake", "seed": 0})
observation, info, system = asyncio.run(env.reset())
print(json.dumps({"class": type(env).__name__, "map": info["map"], "system": system}))
"""

BAD_CONFIG = """
import swift_gym
swift_gym.make({"name": "frozen_lake", "size": "big", "colour": 1})
"""


@pytest.fixture(params=["installed", "editable"])
def env(request: pytest.FixtureRequest) -> Venv:
    return request.getfixturevalue(f"{request.param}_venv")


def test_frozen_lake_is_discovered_through_its_entry_point(env: Venv) -> None:
    result = env.run(LIST_ENVS)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        ["frozen_lake", "swift-gym-frozen-lake", "0.1.0", "swift_gym_frozen_lake:FrozenLakeEnv"],
        [
            "frozen_lake_ms_swift",
            "swift-gym-frozen-lake",
            "0.1.0",
            "swift_gym_frozen_lake:MsSwiftFrozenLakeEnv",
        ],
        ["mcp_tools", "swift-gym", "0.1.0", "swift_gym.mcp.env:McpToolsEnv"],
        ["openenv", "swift-gym", "0.1.0", "swift_gym.remote.env:OpenEnvEnv"],
    ]


def test_make_seed_0_resets_to_the_upstream_map(env: Venv) -> None:
    result = env.run(MAKE_SEED_0)
    assert result.returncode == 0, result.stderr
    made = json.loads(result.stdout)
    assert made["class"] == "FrozenLakeEnv"
    assert made["map"] == ["GFFF", "FFSF", "FFHF", "FFFF"]
    assert "<action>" in made["system"]


def test_a_bad_config_is_one_readable_error(env: Venv) -> None:
    result = env.run(BAD_CONFIG)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()
    error_lines = last[last.index(next(line for line in last if "InvalidConfigError" in line)) :]
    message = "\n".join(error_lines)
    assert "invalid env_config for env 'frozen_lake' (2 problems)" in message
    assert "size: Input should be a valid integer (got 'big')" in message
    assert "colour: unknown key (got 1)" in message
    assert "During handling" not in result.stderr  # no chained pydantic traceback


def test_load_plugins_filter_hides_the_env(env: Venv) -> None:
    result = env.run(LIST_ENVS, env={"SWIFT_GYM_LOAD_PLUGINS": ""})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_swift_gym_imports_without_ms_swift_or_torch(env: Venv) -> None:
    result = env.run(
        "import importlib.util as u; print(u.find_spec('swift'), u.find_spec('torch'))"
    )
    assert result.stdout.split() == ["None", "None"]


FINDERS = "import sys; print(sorted(type(f).__name__ for f in sys.meta_path))"


def test_the_start_up_hook_is_installed_and_can_be_turned_off(env: Venv) -> None:
    result = env.run(FINDERS)
    assert result.returncode == 0, result.stderr
    assert "_RegistryFinder" in result.stdout
    result = env.run(FINDERS, env={"SWIFT_GYM_AUTOLOAD": "0"})
    assert "_RegistryFinder" not in result.stdout
