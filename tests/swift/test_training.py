"""A real GRPO training run: `swift rlhf` on CPU with FrozenLake, no --external_plugins."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonl_records
import pytest
from grpo_run import swift_rlhf

INVALID_ACTION_REWARDS = [0.1, 0.2, 0.3, 0.4]
MAX_TURNS = 3


@pytest.fixture(scope="module")
def training_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Train 2 steps; return the run's output folder (logging.jsonl, completions.jsonl), with the
    trajectories SWIFT_GYM_TRAJECTORIES asked for in its `trajectories` folder."""
    root = tmp_path_factory.mktemp("training")
    dataset = root / "frozen_lake.jsonl"
    with dataset.open("w") as out:
        for seed, invalid in enumerate(INVALID_ACTION_REWARDS):
            env_config = {"seed": seed, "invalid_action_reward": invalid}
            row = {
                "messages": [{"role": "user", "content": "<placeholder>"}],
                "env_config": env_config,
            }
            out.write(json.dumps(row) + "\n")
    trajectories = {"SWIFT_GYM_TRAJECTORIES": str(root / "trajectories")}
    run_dir = swift_rlhf(root, dataset, "frozen_lake", MAX_TURNS, trajectories)
    if (root / "trajectories").exists():  # the trajectory test says when it is missing
        (root / "trajectories").rename(run_dir / "trajectories")
    return run_dir


def completions_by_step(run_dir: Path) -> dict[int, dict]:
    """completions.jsonl rows by training step (ms-swift may log the last step twice)."""
    rows = [json.loads(line) for line in (run_dir / "completions.jsonl").open()]
    return {int(row["step"][0]): row for row in rows}


def test_frozen_lake_episodes_ran_in_training(training_run: Path) -> None:
    steps = completions_by_step(training_run)
    assert sorted(steps) == [1, 2]
    prompts = [prompt for row in steps.values() for prompt in row["prompt"]]
    assert len(prompts) == 4  # 2 steps x 2 completions
    assert all("You are playing FrozenLake" in prompt for prompt in prompts)
    assert all(turns == MAX_TURNS for row in steps.values() for turns in row["num_turns"])


def test_the_env_reward_is_the_training_reward(training_run: Path) -> None:
    # a random model answers garbage: each of its 3 turns earns its row's invalid_action_reward
    steps = completions_by_step(training_run)
    totals = [total for row in steps.values() for total in row["SwiftGymTotal"]]
    expected = {round(MAX_TURNS * reward, 6) for reward in INVALID_ACTION_REWARDS}
    assert {round(total, 6) for total in totals} <= expected
    assert all(total > 0 for total in totals)
    logs = [json.loads(line) for line in (training_run / "logging.jsonl").open()]
    logged = {
        log["global_step/max_steps"]: log for log in logs if "rewards/SwiftGymTotal/mean" in log
    }
    assert sorted(logged) == ["1/2", "2/2"]
    for step, row in steps.items():
        log = logged[f"{step}/2"]
        assert log["rewards/SwiftGymTotal/mean"] == pytest.approx(sum(row["SwiftGymTotal"]) / 2)
        assert log["reward"] == pytest.approx(
            log["rewards/SwiftGymTotal/mean"] + log["rewards/FrozenLakeFormat/mean"]
        )


def test_the_trainer_wrote_every_episode_it_played_with_its_step(training_run: Path) -> None:
    (path,) = (training_run / "trajectories").iterdir()  # one process: one file
    records = jsonl_records.records(path)
    steps = completions_by_step(training_run)
    assert len(records) == sum(len(row["prompt"]) for row in steps.values()) == 4
    assert [record["index"] for record in records] == [0, 1, 2, 3]
    # `training.step` is the trainer's global_step while it played: the optimizer steps taken
    # before; completions.jsonl logs the same episodes after that step, as step + 1
    by_step: dict[int, list[dict]] = {}
    for record in records:
        by_step.setdefault(record["training"]["step"], []).append(record)
    assert sorted(by_step) == [0, 1]
    for step, played in by_step.items():
        totals = sorted(round(record["total_reward"], 6) for record in played)
        assert totals == sorted(round(total, 6) for total in steps[step + 1]["SwiftGymTotal"])
    for record in records:
        assert record["env"] == "frozen_lake" and record["policy"] == "training"
        assert record["training"]["rank"] == 0 and record["training"]["pid"] > 0
        assert record["training"]["host"] and record["training"]["time"] > 0
        assert record["system_prompt"].startswith("You are playing FrozenLake")
        assert record["num_turns"] == MAX_TURNS == len(record["turns"])
        assert record["status"] == "max_turns" and record["success"] is False
        for turn in record["turns"]:
            assert isinstance(turn["reply"], str)
            assert turn["info"]["status"] == "invalid_action"
            assert turn["valid_action"] is False
            assert turn["reward"] == record["env_config"]["invalid_action_reward"]
    replay = Path(sys.executable).with_name("swift-gym")
    shown = subprocess.run(
        [str(replay), "replay", str(path)], capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    assert "invalid_action" in shown.stdout


def test_report_on_the_training_directory_draws_its_learning_curve(training_run: Path) -> None:
    folder = training_run / "trajectories"
    page = training_run / "report.html"
    swift_gym = Path(sys.executable).with_name("swift-gym")
    result = subprocess.run(
        [str(swift_gym), "report", str(folder), "-o", str(page)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "(1 run, 4 episodes)" in result.stderr
    html = page.read_text()
    assert 'role="img" aria-label="success rate over training, run A" viewBox="0 0 520 ' in html
    assert ">training step</text>" in html
    # one point per step the trainer was at, each of its 2 episodes: none succeeded
    assert "<title>all: step 0: 0 (95% CI 0 to " in html
    assert "<title>all: step 1: 0 (95% CI 0 to " in html
    assert html.count('<details class="episode" data-run="A" data-env="frozen_lake"') == 4
