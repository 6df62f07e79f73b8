"""A real `swift rlhf` run whose episodes outgrow the model's context: swift_gym ends those
episodes and trains on; ms-swift's gym_scheduler ends the run.

The tiny model allows 1000 positions (`max_position_embeddings`, which ms-swift's engine takes
as its `max_model_len`). A FrozenLake prompt with its system prompt is about 530 of the tiny
tokenizer's tokens and each turn adds about 165, so the 4th turn's prompt passes 1000 well
before `--max_turns 8`.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonl_records
import pytest
from grpo_run import rlhf_command, run_rlhf
from tiny_model import build_tiny_model

POSITIONS = 1000
MAX_TURNS = 8


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The tiny model with POSITIONS positions, and two FrozenLake rows."""
    root = tmp_path_factory.mktemp("context")
    model = build_tiny_model(root / "model", positions=POSITIONS)
    dataset = root / "rows.jsonl"
    with dataset.open("w") as out:
        for seed in (1, 2):
            row = {"messages": [{"role": "user", "content": "<placeholder>"}]}
            out.write(json.dumps({**row, "env_config": {"seed": seed}}) + "\n")
    return model, dataset


def train(root: Path, model: Path, dataset: Path, scheduler: str):
    command = rlhf_command(
        root, dataset, "frozen_lake", MAX_TURNS, ("swift_gym_total",), 2, model,
        ["--multi_turn_scheduler", scheduler],
    )  # fmt: skip
    return run_rlhf(command, {"SWIFT_GYM_TRAJECTORIES": str(root / "trajectories")})


def test_ms_swift_gym_scheduler_ends_the_run(tmp_path: Path, setup) -> None:
    model, dataset = setup
    result = train(tmp_path, model, dataset, "gym_scheduler")
    assert result.returncode != 0
    assert "leaves no room for generation" in result.stdout + result.stderr


def test_swift_gym_ends_the_episodes_and_trains_on(tmp_path: Path, setup) -> None:
    model, dataset = setup
    result = train(tmp_path, model, dataset, "swift_gym")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    output = result.stdout + result.stderr
    assert "leaves no room to generate within max_model_len 1000" in output
    (run_dir,) = (tmp_path / "output").iterdir()
    logs = [json.loads(line) for line in (run_dir / "logging.jsonl").open()]
    assert {log.get("global_step/max_steps") for log in logs} >= {"1/2", "2/2"}
    (path,) = (tmp_path / "trajectories").iterdir()
    records = jsonl_records.records(path)
    assert len(records) == 4  # 2 steps x 2 completions, every one ended by the context
    for record in records:
        assert record["status"] == "context_full", record["status"]
        assert 1 < record["num_turns"] < MAX_TURNS
        assert record["error"] is None
    rows = [json.loads(line) for line in (run_dir / "completions.jsonl").open()]
    turns = [n for row in rows for n in row["num_turns"]]
    assert turns and all(n < MAX_TURNS for n in turns)
