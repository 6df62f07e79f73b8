"""A real GRPO training run: docs/training.md's FrozenLake command ("GRPO on FrozenLake"), run by
`swift rlhf` on CPU as the page's list of changes says, no --external_plugins; and the page's
server-mode trainer command, which needs GPUs, checked by `swift rlhf`'s own argument parser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import doc_commands
import jsonl_records
import pytest
from grpo_run import page_command, page_rlhf
from tiny_model import build_tiny_model

INVALID_ACTION_REWARDS = [0.1, 0.2, 0.3, 0.4]
MAX_TURNS = 3


def reward_weights() -> dict[str, float]:
    """The page's weights by reward column, as ms-swift logs them; the env's total is the
    column `--use_gym_env` adds (SwiftGymTotal on CPU, after the page's functions)."""
    command = doc_commands.command("colocate", "swift", "rlhf")
    names = {"frozen_lake_format": "FrozenLakeFormat"}
    columns = [names[name] for name in command.value("--reward_funcs") or []] + ["SwiftGymTotal"]
    weights = [float(weight) for weight in command.value("--reward_weights") or ()]
    return dict(zip(columns, weights or [1.0] * len(columns), strict=True))


@pytest.fixture(scope="module")
def training_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Train 2 steps; return the run's output folder (logging.jsonl, completions.jsonl), with the
    trajectories SWIFT_GYM_TRAJECTORIES asked for in its `trajectories` folder. The rows are the
    test's own: each seed prices an invalid reply differently, so each episode's reward says
    which row it played."""
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
    model = build_tiny_model(root / "model")
    run = page_rlhf("colocate", root, model=model, dataset=dataset, max_turns=MAX_TURNS)
    assert run.trajectories is not None, "the page's command sets no SWIFT_GYM_TRAJECTORIES"
    if run.trajectories.exists():  # the trajectory test says when it is missing
        run.trajectories.rename(run.run_dir / "trajectories")
    return run.run_dir


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
    weights = reward_weights()
    for step, row in steps.items():
        log = logged[f"{step}/2"]
        assert log["rewards/SwiftGymTotal/mean"] == pytest.approx(sum(row["SwiftGymTotal"]) / 2)
        assert log["reward"] == pytest.approx(
            sum(weight * log[f"rewards/{name}/mean"] for name, weight in weights.items())
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
    """The page's `swift-gym report` of the run's trajectories."""
    folder = training_run / "trajectories"
    page = training_run / "report.html"
    command = doc_commands.command("colocate", "swift", "rlhf")
    paths = {command.env["SWIFT_GYM_TRAJECTORIES"]: str(folder), "report.html": str(page)}
    report = page_command("colocate", ("swift-gym", "report"), paths)
    result = subprocess.run(report, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "(1 run, 4 episodes)" in result.stderr
    html = page.read_text()
    assert 'role="img" aria-label="success rate over training, run A" viewBox="0 0 520 ' in html
    assert ">training step</text>" in html
    # one point per step the trainer was at, each of its 2 episodes: none succeeded
    assert "<title>all: step 0: 0 (95% CI 0 to " in html
    assert "<title>all: step 1: 0 (95% CI 0 to " in html
    assert html.count('<details class="episode" data-run="A" data-env="frozen_lake"') == 4


def test_the_server_mode_trainer_command_is_one_swift_rlhf_takes() -> None:
    """No CPU runs the page's server-mode trainer (its weights go to the server over NCCL), so
    ms-swift's own parser of `swift rlhf` reads it: an unknown flag, a value of the wrong type
    or outside a flag's choices fails here. Its rows are the FrozenLake command's."""
    from swift.arguments import RLHFArguments
    from swift.utils.utils import _patch_get_type_hints
    from transformers import HfArgumentParser

    command = doc_commands.command("server-trainer", "swift", "rlhf")
    assert command.value("--vllm_mode") == ["server"]
    assert command.value("--vllm_server_pass_dataset") == ["true"]  # rows carry env_config
    with _patch_get_type_hints():  # as swift.utils.parse_args builds it
        parser = HfArgumentParser([RLHFArguments], exit_on_error=False)
    parsed, unknown = parser.parse_known_args(list(command.argv[2:]))
    assert unknown == [], f"swift rlhf takes no {unknown}"
    assert (parsed.rlhf_type, parsed.use_vllm, parsed.vllm_mode) == ("grpo", True, "server")
    (rows,) = command.value("--dataset") or ()
    made = doc_commands.command("server-trainer", "swift-gym", "dataset")
    assert made.value("-o") == [rows]
    assert made.argv == doc_commands.command("colocate", "swift-gym", "dataset").argv
