"""`benchmarks/learning/stages.py`: a GRPO run that ms-swift ends with an error is recorded
(its newest checkpoint, the error, the step it reached) instead of ending the whole pipeline;
one that saved nothing still fails. The command's failure is played by a fake `Commands`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "learning"))

import stages

TAIL = (
    "Train:  41%|####      | 415/1000 [11:00<15:29,  1.59s/it]\n"
    "Traceback (most recent call last):\n"
    '  File "grpo_trainer.py", line 1602, in _get_logps_via_local_forward\n'
    "RuntimeError: Size does not match at dimension 1 expected index [32, 841, 1]\n"
    "Train:  42%|####      | 416/1000 [11:02<15:29,  1.59s/it]\n"
)


class FailingCommands:
    """In-process fake of `Commands`: logs the stage's seconds, then fails as `run` does."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str, float]] = []

    def bin(self, name: str) -> str:
        return name

    def finished(self, stage: str) -> None:
        return None

    def log_path(self, stage: str) -> Path:
        return Path("no-such-log")

    def run(self, stage: str, command: list[str], extra_env: dict | None = None) -> float:
        self.log.append((stage, " ".join(command), 662.5))
        raise RuntimeError(f"{stage} failed (1): {TAIL}")


def grpo(out: Path) -> stages.Trained:
    return stages.grpo(
        FailingCommands(), "C0-grpo", Path("model"), Path("rows"), out, out / "traj",
        1000, 32, 1, 1e-3, 0.01, 10, 1.0, 0,
    )  # fmt: skip


def test_a_run_that_ms_swift_ended_keeps_its_newest_checkpoint_and_says_why(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "v0-20261203-050000"
    for step in (350, 400):
        (run_dir / f"checkpoint-{step}").mkdir(parents=True)
    trained = grpo(tmp_path)
    assert trained.checkpoint == run_dir / "checkpoint-400" and trained.steps == 400
    assert trained.wall_s == 662.5
    assert trained.ended == (
        "ms-swift ended the run with `RuntimeError: Size does not match at dimension 1 "
        "expected index [32, 841, 1]` at step 416 of 1000; evaluated its step-400 checkpoint"
    )


def test_a_run_that_saved_nothing_still_fails(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="Size does not match"):
        grpo(tmp_path)
    (tmp_path / "v0-20261203-050000").mkdir()
    with pytest.raises(RuntimeError, match="Size does not match"):
        grpo(tmp_path)
