"""A real `swift rlhf` GRPO run on a dataset that `swift-gym dataset --mix` made from four env
packages: FrozenLake, a reasoning-gym task, Gymnasium's Taxi and a TextArena game, no
--external_plugins. Each episode's training reward is the total its own env gave.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonl_records
import pytest
from cli_runner import run
from grpo_run import swift_rlhf

MIX = {
    "frozen_lake": "You are playing FrozenLake",
    "reasoning_gym.chain_sum": "<answer>",
    "gymnasium.Taxi-v4": "Taxi",
    "textarena.GuessTheNumber-v0": "Guess",
}
ROWS = 8  # 2 per env; 2 steps of 4 prompts (2 completions each) take every row once


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mixed")
    mix = ",".join(f"{name}:1" for name in MIX)
    made = run("dataset", "--mix", mix, "-n", str(ROWS), "-o", str(root / "mixed.jsonl"))
    assert made.returncode == 0, made.stderr
    trajectories = {"SWIFT_GYM_TRAJECTORIES": str(root / "trajectories")}
    run_dir = swift_rlhf(
        root, root / "mixed.jsonl", "frozen_lake", 2, trajectories,
        reward_funcs=("swift_gym_total",), batch_size=8,
    )  # fmt: skip
    (run_dir / "trajectories").mkdir()
    for path in (root / "trajectories").iterdir():
        path.rename(run_dir / "trajectories" / path.name)
    return run_dir


def episodes(run_dir: Path) -> list[dict]:
    files = sorted((run_dir / "trajectories").iterdir())
    return [record for path in files for record in jsonl_records.records(path)]


def test_the_dataset_mixes_the_four_packages(mixed_run: Path) -> None:
    rows = [json.loads(line) for line in (mixed_run.parent.parent / "mixed.jsonl").open()]
    names = [row["env_config"]["name"] for row in rows]
    assert sorted(names) == sorted([name for name in MIX for _ in range(ROWS // len(MIX))])


def test_every_env_of_the_mix_was_played_in_training(mixed_run: Path) -> None:
    played = episodes(mixed_run)
    assert len(played) == 2 * ROWS  # 2 steps x 8 completions
    assert {record["env"] for record in played} == set(MIX)
    for record in played:  # each episode opened with its own env's words
        first = f"{record['system_prompt']} {record['observation']}"
        assert MIX[record["env"]] in first, (record["env"], first[:300])


def test_the_training_reward_is_each_episodes_own_env_total(mixed_run: Path) -> None:
    played = episodes(mixed_run)
    rows = [json.loads(line) for line in (mixed_run / "completions.jsonl").open()]
    by_step = {int(row["step"][0]): row for row in rows}  # ms-swift may log a step twice
    assert sorted(by_step) == [1, 2]
    logged = sorted(round(total, 6) for row in by_step.values() for total in row["SwiftGymTotal"])
    recorded = sorted(round(record["total_reward"], 6) for record in played)
    assert logged == recorded
    taxi = [record["total_reward"] for record in played if record["env"] == "gymnasium.Taxi-v4"]
    assert taxi and all(total < 0 for total in taxi)  # a random model never delivers: -1 a move
