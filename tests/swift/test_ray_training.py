"""A real `swift rlhf` GRPO run with its envs placed on a Ray cluster (SWIFT_GYM_RAY_ADDRESS):
every reset and step of every training episode played on a worker node, in an actor's process,
not in the trainer; the rewards it trained on are those episodes'; nothing left after."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import netns
import pytest

MAX_TURNS = 3


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("ray-training")
    return netns.run(str(Path(__file__).with_name("ray_training.py")), str(root), timeout=900)  # type: ignore[no-any-return]


def test_every_training_turn_was_played_on_a_worker_node(report: dict[str, Any]) -> None:
    records = report["records"]
    assert len(records) == 4  # 2 steps x 2 completions
    for record in records:
        trainer = record["training"]["pid"]
        assert record["num_turns"] == MAX_TURNS == len(record["turns"])
        for turn in record["turns"]:
            place = turn["info"]["ray"]
            assert place["node_id"] in report["workers"]
            assert place["node_id"] != report["head"]
            assert place["pid"] != trainer


def test_the_trainer_trained_on_the_rewards_the_actors_gave(report: dict[str, Any]) -> None:
    # a random model answers garbage: each turn earns its row's invalid_action_reward, which
    # only the env (on the worker) knows how to pay
    played = sorted(round(record["total_reward"], 6) for record in report["records"])
    for record in report["records"]:
        assert record["total_reward"] == pytest.approx(
            MAX_TURNS * record["env_config"]["invalid_action_reward"]
        )
    trained = sorted(
        round(total, 6)
        for row in {int(row["step"][0]): row for row in report["completions"]}.values()
        for total in row["SwiftGymTotal"]
    )
    assert trained == played


def test_no_actor_outlives_the_training_run(report: dict[str, Any]) -> None:
    assert report["actors_left"] == []
