"""Remote FrozenLake through ms-swift's own schedulers: `openenv` rows played against a real
`swift-gym serve` process on 127.0.0.1, on both of ms-swift's multi-turn paths (server `run()`
and colocate `run_multi_turn`, which drives the hooks on different event loops)."""

from __future__ import annotations

import os
import re

import jsonl_records
import pytest
import serve_process

pytest.importorskip("websockets")


def remote_rows(rows, url: str, seeds) -> list:
    return rows(*({"name": "openenv", "base_url": url, "seed": seed} for seed in seeds))


def test_remote_episodes_earn_the_goal_reward(
    scheduler_name: str, oracle, rows, run_rollout, lake: serve_process.Server
) -> None:
    outputs = run_rollout(scheduler_name, oracle, remote_rows(rows, lake.url, range(4)))
    for output in outputs:
        infos = output.rollout_infos
        assert infos["total_reward"] == 1.0 and infos["gym_done"] is True
        assert len(infos["step_rewards"]) == infos["num_turns"] >= 1


def test_swift_gym_keeps_the_remote_step_infos(
    oracle, rows, run_rollout, lake: serve_process.Server
) -> None:
    (output,) = run_rollout("swift_gym", oracle, remote_rows(rows, lake.url, [2]))
    infos = output.rollout_infos
    assert infos["env_name"] == "openenv" and infos["env_error"] is None
    steps = infos["step_infos"]
    assert [step["status"] for step in steps][-1] == "goal"
    assert all(step["env"] == "frozen_lake" and "position" in step for step in steps)
    assert infos["env_metrics"]["success"] == 1
    assert output.messages[0]["role"] == "system"
    assert output.messages[0]["content"].startswith("You are playing FrozenLake")
    assert output.messages[1]["content"].count("\n") >= 4  # the map as text, not JSON


def test_a_server_killed_mid_batch_ends_only_its_episodes(
    oracle, rows, run_rollout, tmp_path
) -> None:
    doomed = serve_process.start("frozen_lake")
    alive = serve_process.start("frozen_lake")
    killed = []

    def policy(request, turn):
        if turn == 1 and not killed:  # every episode has had its reset and first step
            killed.append(doomed.stop(sig=9))
        return oracle(request, turn)

    try:
        seeds = [0, 2, 5, 7]  # 3, 3, 4 and 5 moves: none ends before the kill
        urls = [doomed.url, doomed.url, alive.url, alive.url]
        requests = rows(
            *(
                {"name": "openenv", "base_url": url, "seed": seed}
                for url, seed in zip(urls, seeds, strict=True)
            )
        )  # one call: each request its own uuid
        outputs = run_rollout("swift_gym", policy, requests)
    finally:
        alive.stop()
        doomed.stop()
    assert killed
    for output in outputs[:2]:
        infos = output.rollout_infos
        assert infos["total_reward"] == 0.0
        # in server mode a slow episode may still be resetting when the server dies
        assert re.match(r"(reset|step) failed: RemoteEnvError: ws://", infos["env_error"])
    for output in outputs[2:]:
        assert output.rollout_infos["total_reward"] == 1.0
        assert output.rollout_infos["env_error"] is None
    assert os.environ.get("SWIFT_GYM_STEP_TIMEOUT") is None


def test_swift_rlhf_trains_on_a_remote_frozen_lake(tmp_path, lake: serve_process.Server) -> None:
    """The user's route: rows from `swift-gym dataset --remote`, `swift rlhf --gym_env openenv`."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from grpo_run import swift_rlhf

    dataset = tmp_path / "remote.jsonl"
    swift_gym = Path(sys.executable).with_name("swift-gym")
    made = subprocess.run(
        [str(swift_gym), "dataset", "frozen_lake", "-n", "4", "--set", "invalid_action_reward=0.25",
         "--remote", lake.url, "-o", str(dataset)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    trajectories = tmp_path / "trajectories"
    run_dir = swift_rlhf(tmp_path, dataset, "openenv", 2, {
        "SWIFT_GYM_TRAJECTORIES": str(trajectories)})  # fmt: skip
    completions = [json.loads(line) for line in (run_dir / "completions.jsonl").open()]
    prompts = [prompt for row in completions for prompt in row["prompt"]]
    assert prompts and all("You are playing FrozenLake" in prompt for prompt in prompts)
    totals = [total for row in completions for total in row["SwiftGymTotal"]]
    # a random-weight model mostly answers garbage: the remote env's 0.25 per invalid turn
    assert totals and all((total * 4).is_integer() for total in totals) and max(totals) >= 0.25
    (path,) = trajectories.iterdir()
    records = jsonl_records.records(path)
    assert len(records) == 4 and {record["env"] for record in records} == {"openenv"}
    for record in records:
        assert record["error"] is None
        assert all(turn["info"]["env"] == "frozen_lake" for turn in record["turns"])
