"""The installed distribution: public names, the `swift_gym.envs` entry point, `info`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import distribution, entry_points
from pathlib import Path

import swift_gym
import swift_gym_frozen_lake
from swift_gym_frozen_lake import FrozenLakeEnv


def test_public_names():
    assert set(swift_gym_frozen_lake.__all__) >= {
        "FrozenLakeEnv",
        "FrozenLakeConfig",
        "generate_random_map",
        "solve",
        "parse_action",
        "SYSTEM_PROMPT",
        "ACTIONS",
    }
    assert swift_gym_frozen_lake.ACTIONS == ("up", "down", "left", "right")
    assert issubclass(FrozenLakeEnv, swift_gym.Env)
    assert FrozenLakeEnv.config_model is swift_gym_frozen_lake.FrozenLakeConfig


def test_entry_point_names_the_env_class():
    (entry_point,) = [ep for ep in entry_points(group="swift_gym.envs") if ep.name == "frozen_lake"]
    assert entry_point.value == "swift_gym_frozen_lake:FrozenLakeEnv"
    assert entry_point.load() is FrozenLakeEnv
    dist = distribution("swift-gym-frozen-lake")
    assert dist.version == swift_gym_frozen_lake.__version__ == "0.1.0"
    assert any(req.startswith("swift-gym") for req in dist.requires or [])


def swift_gym_command(*args):
    """The installed `swift-gym` command, in a new process."""
    script = Path(sys.executable).parent / "swift-gym"
    environ = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, env=environ, timeout=120
    )


def test_info_shows_the_drop_in_fields():
    shown = swift_gym_command("info", "frozen_lake")
    assert shown.returncode == 0, shown.stderr
    field_line = next(line for line in shown.stdout.splitlines() if line.startswith("text_style"))
    assert "swift_gym" in field_line and "ms_swift" in field_line
    schema = swift_gym_command("info", "frozen_lake", "--schema")
    assert schema.returncode == 0, schema.stderr
    text_style = json.loads(schema.stdout)["properties"]["text_style"]
    assert (text_style["enum"], text_style["default"]) == (["swift_gym", "ms_swift"], "swift_gym")
    assert "ms-swift's example plugin" in text_style["description"]
