"""benchmarks/catalogue.py's smoke form: one env, two episodes a policy, so the script that
writes docs/envs/catalogue.json does not rot. The full run (every env, 20 episodes each) is
`tox -e catalogue`, never CI's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_runner import clean_environ

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "catalogue.py"


def test_the_script_measures_one_env_and_writes_its_entry(tmp_path: Path) -> None:
    out = tmp_path / "catalogue.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--only", "frozen_lake", "-n", "2", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_environ(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    catalogue = json.loads(out.read_text())
    assert (catalogue["episodes"], catalogue["seeds"]) == (2, "0..1")
    assert catalogue["command"] == "tox -e catalogue"
    assert "swift-gym-frozen-lake" in catalogue["packages"]
    (card,) = catalogue["envs"]
    assert (card["name"], card["tool_use"], card["images"]) == ("frozen_lake", "opt-in", False)
    assert card["oracle"]["success_rate"] == 1.0 and card["oracle"]["episodes"] == 2
    assert card["random"]["episodes"] == 2
    assert "frozen_lake: random" in done.stderr


def test_a_pattern_that_matches_nothing_is_an_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--only", "nothing*", "-o", str(tmp_path / "c.json")],
        capture_output=True,
        text=True,
        env=clean_environ(),
        timeout=120,
    )
    assert done.returncode == 1
    assert "no installed env matches nothing*" in done.stderr
    assert not (tmp_path / "c.json").exists()
