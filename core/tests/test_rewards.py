"""Reward functions for ms-swift, collected through the `swift_gym_register_rewards` hook.

`FakeORM` stands in for ms-swift's `ORM` base class (in-process fake); the real one is used by
the ms-swift tests in `tests/swift/`.
"""

from __future__ import annotations

import pytest

from swift_gym.ms_swift.rewards import reward_functions
from swift_gym.plugins import PluginFilter, load_plugins
from swift_gym.rewards import collect_rewards, success, total_reward

pytestmark = pytest.mark.usefixtures("clean_plugin_env")


class FakeORM:
    def __init__(self, args=None, **kwargs):
        self.args = args


def test_total_reward_reads_rollout_infos_and_defaults_to_zero() -> None:
    infos = [{"total_reward": 1.0}, {"total_reward": "x"}, None, {}, {"total_reward": float("nan")}]
    assert total_reward(["a"] * 5, rollout_infos=infos) == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert total_reward(["a", "b"]) == [0.0, 0.0]


def test_success_reads_the_env_metrics_the_swift_gym_scheduler_keeps() -> None:
    infos = [
        {"env_metrics": {"success": 1.0}},
        {"env_metrics": {"success": 0.0}},
        {"env_metrics": {}},
        {"env_metrics": {"success": "yes"}},
        {"total_reward": 1.0},
        None,
    ]
    assert success(["a"] * 6, rollout_infos=infos) == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]


REWARD_PLUGIN = """
    import swift_gym


    def length_reward(completions, **kwargs):
        "One point per character, for tests."
        return [float(len(c)) for c in completions]


    @swift_gym.hookimpl
    def swift_gym_register_rewards(register):
        register("length", length_reward)
        register("lazy_length", "gym_rewards:length_reward")
        register("swift_gym_total", length_reward)
        register("broken", 42)
"""

RAISING_PLUGIN = """
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_rewards(register):
        raise RuntimeError("no rewards today")
"""


def test_plugins_register_rewards_and_a_raising_plugin_breaks_only_itself(fake_dist) -> None:
    fake_dist("gym-rewards", plugins={"r": "gym_rewards"}, modules={"gym_rewards": REWARD_PLUGIN})
    fake_dist("gym-raising", plugins={"r": "gym_raising"}, modules={"gym_raising": RAISING_PLUGIN})
    loaded = load_plugins(PluginFilter(only=frozenset({"gym-rewards", "gym-raising"})))
    rewards = collect_rewards(loaded)
    assert sorted(rewards) == ["lazy_length", "length", "swift_gym_success", "swift_gym_total"]
    assert rewards["swift_gym_total"] is total_reward  # built-ins are not replaced
    assert rewards["lazy_length"] == "gym_rewards:length_reward"


def test_orm_classes_call_through_and_import_lazy_rewards_on_first_use(
    fake_dist, monkeypatch
) -> None:
    fake_dist("gym-rewards", plugins={"r": "gym_rewards"}, modules={"gym_rewards": REWARD_PLUGIN})
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "gym-rewards")
    classes = reward_functions(FakeORM)
    length = classes["length"](args="training args")
    assert isinstance(length, FakeORM) and length.args == "training args"
    assert length(["ab", "abc"]) == [2.0, 3.0]
    assert classes["length"].__doc__ == "One point per character, for tests."
    assert classes["lazy_length"]()(["abcd"]) == [4.0]
    total = classes["swift_gym_total"]()
    assert total(["x"], rollout_infos=[{"total_reward": 0.5}]) == [0.5]


EXITING_REWARD = """
import sys
sys.exit(4)
"""

EXITING_PLUGIN = """
import swift_gym

@swift_gym.hookimpl
def swift_gym_register_rewards(register):
    register("exits", "gym_exiting_reward:nothing")
"""


def test_a_lazy_reward_whose_module_exits_raises_a_clear_error(fake_dist, monkeypatch) -> None:
    fake_dist(
        "gym-exits",
        plugins={"r": "gym_exits"},
        modules={"gym_exits": EXITING_PLUGIN, "gym_exiting_reward": EXITING_REWARD},
    )
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "gym-exits")
    reward = reward_functions(FakeORM)["exits"]()
    with pytest.raises(RuntimeError, match=r"'exits' .* failed to import: SystemExit: .*exit\(4\)"):
        reward(["x"])
