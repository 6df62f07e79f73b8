"""Without the setting, nothing changes: no Ray import, envs in the calling process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("ray", reason="ray is not installed: nothing to show it is not imported")


def test_without_the_setting_ray_is_never_imported_and_envs_run_here() -> None:
    probe = (
        "import json, os, sys, swift_gym\n"
        "result = swift_gym.evaluate('frozen_lake', 'oracle', episodes=3)\n"
        "infos = [turn['info'] for record in result.records for turn in record['turns']]\n"
        "print(json.dumps({'ray': 'ray' in sys.modules, 'rate': result.success_rate,\n"
        "                  'marked': any('ray' in info for info in infos)}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_RAY")}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert json.loads(result.stdout.splitlines()[-1]) == {
        "ray": False,
        "rate": 1.0,
        "marked": False,
    }
