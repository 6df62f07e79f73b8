"""A real `swift rlhf` GRPO run on a dataset that `swift-gym dataset --mix` made from four env
packages: FrozenLake, a reasoning-gym task, Gymnasium's Taxi and a TextArena game, no
--external_plugins. Each episode's training reward is the total its own env gave. The commands
are docs/training.md's ("A mixed dataset of several env packages"), as the page's list of
changes says: its `swift-gym dataset --mix` with 8 rows, its `swift rlhf`, its `swift-gym report`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import doc_commands
import jsonl_records
import pytest
from cli_runner import clean_environ
from grpo_run import page_command, page_rlhf
from tiny_model import build_tiny_model

MIX = {
    "frozen_lake": "You are playing FrozenLake",
    "reasoning_gym.chain_sum": "<answer>",
    "gymnasium.Taxi-v4": "Taxi",
    "textarena.GuessTheNumber-v0": "Guess",
}
ROWS = 8  # 2 per env; 2 steps of 4 prompts (2 completions each) take every row once


def run_page(command: list[str]) -> None:
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=300, env=clean_environ(NO_COLOR="1")
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mixed")
    rows = root / "mixed.jsonl"
    made = doc_commands.command("mixed", "swift-gym", "dataset")
    assert made.value("--mix") == [",".join(f"{name}:1" for name in MIX)], "the page's mix"
    run_page(page_command("mixed", ("swift-gym", "dataset"), {"mixed.jsonl": str(rows)}, {
        "-n": [str(ROWS)],
    }))  # fmt: skip
    model = build_tiny_model(root / "model")
    run = page_rlhf(
        "mixed", root, model=model, dataset=rows, max_turns=2,
        flags={"--per_device_train_batch_size": ["8"]},
    )  # fmt: skip
    assert run.trajectories is not None, "the page's command sets no SWIFT_GYM_TRAJECTORIES"
    run.trajectories.rename(run.run_dir / "trajectories")
    return run.run_dir


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


def test_the_report_shows_every_env_of_the_mix(mixed_run: Path) -> None:
    """The page's `swift-gym report` of the run's trajectories."""
    page = mixed_run / "mixed.html"
    rlhf = doc_commands.command("mixed", "swift", "rlhf")
    folder = {rlhf.env["SWIFT_GYM_TRAJECTORIES"]: str(mixed_run / "trajectories")}
    run_page(page_command("mixed", ("swift-gym", "report"), {**folder, "mixed.html": str(page)}))
    html = page.read_text()
    for name in MIX:
        assert f'data-env="{name}"' in html, name
