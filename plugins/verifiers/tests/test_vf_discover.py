"""Installed verifiers environments are listed as `verifiers.<id>` from metadata and source
text: listing imports neither verifiers nor any environment, and a name from data reaches only
an installed environment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import swift_gym
from swift_gym_verifiers import envs
from swift_gym_verifiers.discover import exports_taskset, installed

EXAMPLES = ["verifiers.sg_calculator", "verifiers.sg_guess", "verifiers.sg_reverse"]


def test_listing_finds_the_examples_and_imports_nothing_of_them() -> None:
    code = (
        "import json, sys, swift_gym\n"
        "names = [spec.name for spec in swift_gym.list_envs()]\n"
        "heavy = [m for m in ('verifiers', 'sg_reverse', 'sg_calculator', 'sg_guess',"
        " 'swift_gym_verifiers.env', 'openai') if m in sys.modules]\n"
        "print(json.dumps({'names': names, 'imported': heavy}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    listed = json.loads(out.stdout)
    assert set(EXAMPLES) <= set(listed["names"])
    assert listed["imported"] == []


def test_only_packages_exporting_a_taskset_are_environments() -> None:
    found = installed()
    assert {"sg_reverse", "sg_calculator", "sg_guess"} <= set(found)
    assert found["sg_reverse"].distribution == "swift-gym-verifiers-examples"
    # this package requires verifiers too, but exports a harness: not an environment
    assert "swift_gym_verifiers" not in found


def test_an_init_is_read_never_run(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text("raise SystemExit('ran')\n__all__ = ['GameTaskset']\n")
    assert exports_taskset(init) is True
    init.write_text("__all__ = ['GameHarness']\n")
    assert exports_taskset(init) is False
    init.write_text("__all__ = [\n")  # a syntax error is no environment, not a crash
    assert exports_taskset(init) is False
    assert exports_taskset(tmp_path / "missing.py") is False


def test_a_name_from_data_reaches_only_installed_environments() -> None:
    with pytest.raises(swift_gym.UnknownEnvError):
        swift_gym.make({"name": "verifiers.os"})
    for attribute in ("taskset_os", "taskset_swift_gym_verifiers", "taskset_../x", "os"):
        with pytest.raises(AttributeError):
            getattr(envs, attribute)
    assert envs.taskset_sg_reverse.taskset_id == "sg_reverse"
