"""FrozenLake episodes through ms-swift's own schedulers, registered with no --external_plugins."""

from __future__ import annotations

import subprocess
import sys

import pytest
from swift.rewards.orm import orms
from swift.rollout.gym_env import envs

import swift_gym
from swift_gym import InvalidConfigError

DONE_WHEN = (
    "from swift.rollout.multi_turn import multi_turns; "
    "s = multi_turns['gym_scheduler'](max_turns=3, gym_env='{name}'); "
    "print(type(s._create_env({{'seed': 0}})).__name__)"
)


def test_a_new_process_finds_frozen_lake_through_gym_scheduler() -> None:
    command = [sys.executable, "-c", DONE_WHEN.format(name="frozen_lake")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "FrozenLakeEnv"


def test_a_misspelt_gym_env_suggests_the_installed_name() -> None:
    command = [sys.executable, "-c", DONE_WHEN.format(name="frozen_lak")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert "unknown env 'frozen_lak'. Did you mean 'frozen_lake'?" in result.stderr


def test_solved_episodes_earn_the_goal_reward(
    scheduler_name: str, oracle, rows, run_rollout
) -> None:
    outputs = run_rollout(scheduler_name, oracle, rows({"seed": 0}, {"seed": 1}, {"seed": 2}))
    for output, turns in zip(outputs, (3, 1, 3), strict=True):
        infos = output.rollout_infos
        assert infos["total_reward"] == 1.0
        assert infos["gym_done"] is True
        assert infos["num_turns"] == turns
        assert len(infos["step_rewards"]) == turns


def test_a_hole_ends_the_episode_with_zero(scheduler_name: str, rows, run_rollout) -> None:
    # seed 0: GFFF / FFSF / FFHF / FFFF, the start is right above the hole
    (output,) = run_rollout(scheduler_name, lambda r, t: "<action>down</action>", rows({"seed": 0}))
    assert output.rollout_infos["total_reward"] == 0.0
    assert output.rollout_infos["step_rewards"] == [0.0]


def test_garbage_replies_never_fail_and_run_to_max_turns(
    scheduler_name: str, rows, run_rollout
) -> None:
    replies = ["", "set up", "<action>up</action>" * 1000, "\u2603" * 10_000]
    (output,) = run_rollout(scheduler_name, lambda r, t: replies[t % 4], rows({"seed": 0}), 4)
    infos = output.rollout_infos
    assert infos["num_turns"] == 4 and infos["gym_done"] is False
    if scheduler_name == "swift_gym":
        statuses = [info["status"] for info in infos["step_infos"]]
        assert statuses == ["invalid_action", "invalid_action", "ok", "invalid_action"]


def test_swift_gym_keeps_each_step_info_and_the_env_metrics(oracle, rows, run_rollout) -> None:
    (output,) = run_rollout("swift_gym", oracle, rows({"seed": 0}))
    infos = output.rollout_infos
    assert infos["env_name"] == "frozen_lake" and infos["env_error"] is None
    assert infos["reset_info"]["map"] == ["GFFF", "FFSF", "FFHF", "FFFF"]
    assert [info["status"] for info in infos["step_infos"]] == ["ok", "ok", "goal"]
    assert infos["env_metrics"] == {"success": 1.0, "valid_action": 1.0, "moved": 1.0}
    log_success = orms["swift_gym_success"]()  # as ms-swift builds --reward_funcs
    assert log_success(["..."], rollout_infos=[infos]) == [1.0]


def test_a_bad_row_fails_with_the_clear_error_under_gym_scheduler(
    oracle, rows, run_rollout
) -> None:
    with pytest.raises(InvalidConfigError, match="size: Input should be a valid integer"):
        run_rollout("gym_scheduler", oracle, rows({"seed": 0, "size": "big"}))


class RaisingEnv(swift_gym.Env):
    """Raises in step on purpose, to show one broken episode does not stop the batch."""

    async def reset(self, request=None):
        return "ready", {}, ""

    async def step(self, messages):
        raise RuntimeError("simulated env crash")


def test_swift_gym_isolates_a_bad_row_and_a_raising_env(
    monkeypatch, oracle, rows, run_rollout, make_scheduler
) -> None:
    monkeypatch.setitem(envs, "raising", RaisingEnv)  # as an --external_plugins file would
    requests = rows({"seed": 0}, {"seed": 1, "size": "big"}, {"name": "raising", "seed": 2})
    scheduler = make_scheduler("swift_gym", oracle)
    good, bad_row, crashed = run_rollout("swift_gym", oracle, requests, scheduler=scheduler)
    assert scheduler._live == {}  # nothing left behind
    assert good.rollout_infos["total_reward"] == 1.0
    assert bad_row.rollout_infos["total_reward"] == 0.0
    assert "reset failed: InvalidConfigError" in bad_row.rollout_infos["env_error"]
    assert "size: Input should be a valid integer" in bad_row.rollout_infos["env_error"]
    assert crashed.rollout_infos["total_reward"] == 0.0
    assert crashed.rollout_infos["env_error"] == "step failed: RuntimeError: simulated env crash"


def test_swift_gym_closes_envs_cut_off_by_max_turns(
    monkeypatch, rows, run_rollout, make_scheduler
) -> None:
    closed = []

    class EndlessEnv(RaisingEnv):
        async def step(self, messages):
            return "again", 0.0, False, {}

        async def close(self):
            closed.append(self)

    def policy(request, turn):
        return "anything"

    monkeypatch.setitem(envs, "endless", EndlessEnv)
    scheduler = make_scheduler("swift_gym", policy, max_turns=2)
    requests = rows({"name": "endless"}, {"name": "endless"})
    outputs = run_rollout("swift_gym", policy, requests, 2, scheduler=scheduler)
    assert [output.rollout_infos["num_turns"] for output in outputs] == [2, 2]
    assert len(closed) == 2
    assert scheduler._live == {}
