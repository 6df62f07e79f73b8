"""Trajectories from training: the `swift_gym` scheduler under ms-swift writes every episode.

Both of ms-swift's multi-turn paths (server: `scheduler.run`; colocate: `run_multi_turn`) on the
scripted engine of conftest.py, with SWIFT_GYM_TRAJECTORIES set. The real `swift rlhf` run is in
test_training.py.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonl_records
import pytest
from swift.rollout.gym_env import envs

import swift_gym
from swift_gym.ms_swift import trainer_seam

VARIABLE = "SWIFT_GYM_TRAJECTORIES"


def records_in(directory: Path) -> list[dict[str, Any]]:
    """The records of the one file the test process wrote."""
    (path,) = directory.iterdir()
    return jsonl_records.records(path)


@pytest.fixture
def trajectories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "trajectories"
    monkeypatch.setenv(VARIABLE, str(directory))
    return directory


def test_every_episode_is_written_with_its_replies_and_infos(
    trajectories: Path, oracle, rows, run_rollout
) -> None:
    outputs = run_rollout("swift_gym", oracle, rows({"seed": 0}, {"seed": 1}, {"seed": 2}))
    records = sorted(records_in(trajectories), key=lambda record: record["seed"])
    assert sorted(record["index"] for record in records) == [0, 1, 2]  # the process's sequence
    for record, output in zip(records, outputs, strict=True):
        infos = output.rollout_infos
        assert record["env"] == "frozen_lake" and record["policy"] == "training"
        assert record["system_prompt"].startswith("You are playing FrozenLake")
        assert record["observation"].startswith("A new episode starts")
        assert record["reset_info"] == infos["reset_info"]
        assert [turn["info"] for turn in record["turns"]] == infos["step_infos"]
        assert record["num_turns"] == infos["num_turns"] == len(record["turns"])
        assert record["total_reward"] == infos["total_reward"] == 1.0
        assert (record["status"], record["success"], record["error"]) == ("goal", True, None)
        assert record["training"]["step"] is None  # no trainer here: time and sequence tell
    seed0 = records[0]
    assert [turn["reply"] for turn in seed0["turns"]] == [
        "<action>up</action>",
        "<action>left</action>",
        "<action>left</action>",
    ]
    assert [turn["action"] for turn in seed0["turns"]] == ["up", "left", "left"]
    assert [turn["valid_action"] for turn in seed0["turns"]] == [True, True, True]
    assert [turn["reward"] for turn in seed0["turns"]] == [0.0, 0.0, 1.0]
    assert seed0["turns"][-1]["observation"].startswith("You moved left. You reached the goal")


def test_an_episode_cut_off_by_max_turns_says_so(trajectories: Path, rows, run_rollout) -> None:
    run_rollout("swift_gym", lambda request, turn: "no idea", rows({"seed": 0}), 2)
    (record,) = records_in(trajectories)
    assert (record["status"], record["num_turns"], record["success"]) == ("max_turns", 2, False)
    assert [turn["valid_action"] for turn in record["turns"]] == [False, False]
    assert [turn["reply"] for turn in record["turns"]] == ["no idea", "no idea"]


class CrashingEnv(swift_gym.Env):
    """One good step, then its step raises; with seed 1 its reset raises."""

    async def reset(self, request: Any = None) -> tuple[str, dict, str]:
        if self.config.seed == 1:
            raise RuntimeError("reset crash")
        return "your move", {}, ""

    async def step(self, messages: Any) -> tuple[str, float, bool, dict]:
        if len(messages) > 2:
            raise RuntimeError("step crash")
        return "again", 0.5, False, {"status": "ok"}


def test_env_errors_are_recorded_as_errors(
    trajectories: Path, rows, run_rollout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(envs, "crashing", CrashingEnv)
    requests = rows({"name": "crashing", "seed": 0}, {"name": "crashing", "seed": 1})
    run_rollout("swift_gym", lambda request, turn: "anything", requests)
    by_seed = {record["seed"]: record for record in records_in(trajectories)}
    assert by_seed[0]["status"] == "error" and by_seed[0]["num_turns"] == 1
    assert by_seed[0]["error"] == "step failed: RuntimeError: step crash"
    assert by_seed[0]["total_reward"] == 0.0  # what training got
    assert by_seed[1]["status"] == "error" and by_seed[1]["turns"] == []
    assert by_seed[1]["error"] == "reset failed: RuntimeError: reset crash"


def test_a_bad_directory_is_one_warning_and_the_rollout_is_unchanged(
    tmp_path: Path, oracle, rows, run_rollout, monkeypatch, caplog
) -> None:
    requests = ({"seed": 0}, {"seed": 1}, {"seed": 2})
    monkeypatch.delenv(VARIABLE, raising=False)
    plain = run_rollout("swift_gym", oracle, rows(*requests))
    expected = [output.rollout_infos for output in plain]
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(VARIABLE, str(blocker))
    caplog.set_level(logging.WARNING, logger="swift_gym")
    outputs = run_rollout("swift_gym", oracle, rows(*requests))
    assert [output.rollout_infos for output in outputs] == expected
    assert len(caplog.messages) == 1 and "Not a directory" in caplog.messages[0]


class Trainer:
    """Builds its scheduler in `_prepare_scheduler`, as ms-swift 4.6's trainers do; the method
    is wrapped as swift-gym wraps theirs (`trainer_seam`)."""

    class State:
        global_step = 0

    class Accelerator:
        process_index = 3

    def __init__(self, make_scheduler, policy) -> None:
        self.state = self.State()
        self.accelerator = self.Accelerator()
        self._prepare_scheduler(make_scheduler, policy)

    @trainer_seam._wrapped
    def _prepare_scheduler(self, make_scheduler, policy) -> None:
        self.multi_turn_scheduler = make_scheduler("swift_gym", policy)


def test_the_training_step_is_the_trainers_global_step(
    trajectories: Path, oracle, rows, run_rollout, make_scheduler
) -> None:
    trainer = Trainer(make_scheduler, oracle)
    scheduler = trainer.multi_turn_scheduler
    for step in (0, 1):
        trainer.state.global_step = step
        run_rollout("swift_gym", oracle, rows({"seed": 0}, {"seed": 1}), scheduler=scheduler)
        scheduler.infer_engine.turns.clear()  # the next step replays the same uuids
    records = records_in(trajectories)
    assert [(r["training"]["step"], r["training"]["rank"]) for r in records] == [
        (0, 3),
        (0, 3),
        (1, 3),
        (1, 3),
    ]


SEAM_CHECK = """
from types import SimpleNamespace

from swift.rlhf_trainers.rollout_mixin import RolloutTrainerMixin

trainer = SimpleNamespace(
    args=SimpleNamespace(multi_turn_scheduler="swift_gym", max_turns=3, gym_env="frozen_lake"),
    processing_class=None,
    template=None,
)
RolloutTrainerMixin._prepare_scheduler(trainer)  # ms-swift 4.6's own, as swift-gym wrapped it
print(trainer.multi_turn_scheduler._trainer() is trainer)
"""


def test_ms_swifts_trainer_hands_its_scheduler_the_trainer(tmp_path: Path) -> None:
    """The seam on ms-swift's real `RolloutTrainerMixin._prepare_scheduler`, in a process of
    its own (this test process has tests/vllm on its path, which ms-swift takes for vLLM)."""
    result = subprocess.run(
        [sys.executable, "-c", SEAM_CHECK],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "True"


def test_replay_shows_a_training_trajectory_file(trajectories: Path, oracle, rows, run_rollout):
    run_rollout("swift_gym", oracle, rows({"seed": 0}))
    (path,) = trajectories.iterdir()
    replay = Path(sys.executable).with_name("swift-gym")
    result = subprocess.run(
        [str(replay), "replay", str(path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "<action>up</action>" in result.stdout and "goal" in result.stdout
