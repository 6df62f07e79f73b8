"""The "All four together" block of docs/envs/index.md, as written: its swift-gym lines run here
(where all four packages are installed, as its pip line installs them); its `swift rlhf` line
runs in the `swift` env (tests/swift/test_training_mixed.py trains on such a dataset)."""

from __future__ import annotations

import json
import shlex
from collections import Counter
from pathlib import Path

from cli_runner import run

REPO = Path(__file__).resolve().parents[2]


def block() -> list[str]:
    page = (REPO / "docs" / "envs" / "index.md").read_text(encoding="utf-8")
    section = page.split("## All four together", 1)[1]
    code = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("  #")[0].strip() for line in code.splitlines() if line.strip()]


def test_the_block_installs_the_core_and_the_four_env_packages():
    (pip,) = [line for line in block() if line.startswith("pip install")]
    assert sorted(shlex.split(pip)[2:]) == sorted(
        ["./core", "./plugins/frozen_lake", "./plugins/gymnasium", "./plugins/reasoning_gym",
         "./plugins/textarena"]
    )  # fmt: skip
    assert all((REPO / path).is_dir() for path in shlex.split(pip)[2:])


def test_the_swift_gym_lines_run_as_written(tmp_path):
    lines = [line for line in block() if line.startswith("swift-gym ")]
    assert [shlex.split(line)[1] for line in lines] == ["list", "dataset"]
    for line in lines:
        result = run(*shlex.split(line)[1:], cwd=tmp_path)
        assert result.returncode == 0, line + "\n" + result.stderr
        if line.startswith("swift-gym list"):
            assert len(result.stdout.strip().splitlines()) > 5
    rows = [json.loads(line) for line in (tmp_path / "mixed.jsonl").open()]
    counts = Counter(row["env_config"]["name"] for row in rows)
    assert counts == {
        "frozen_lake": 400,
        "reasoning_gym.chain_sum": 200,
        "gymnasium.Taxi-v4": 200,
        "textarena.GuessTheNumber-v0": 200,
    }
    (rlhf,) = [line for line in block() if line.startswith("swift rlhf")]
    assert "--dataset mixed.jsonl" in rlhf and "--multi_turn_scheduler swift_gym" in rlhf
