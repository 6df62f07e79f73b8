"""validate's build check contains whatever an env's constructor raises, SystemExit included.

In-process, with a fake distribution on sys.path (conftest's `fake_dist`).
"""

from __future__ import annotations

import pytest

from swift_gym.registry import Registry
from swift_gym.rows import RowChecker

EXITING = """
import sys
import swift_gym

class ExitingEnv(swift_gym.Env):
    def __init__(self, env_config=None):
        super().__init__(env_config)
        sys.exit(3)

    async def reset(self, request=None):
        return "", {}, None

    async def step(self, messages):
        return "", 0.0, True, {}

class InterruptingEnv(ExitingEnv):
    def __init__(self, env_config=None):
        raise KeyboardInterrupt
"""


@pytest.fixture
def registry(fake_dist, monkeypatch: pytest.MonkeyPatch) -> Registry:
    fake_dist(
        "gym-exiting",
        envs={"exiting": "gym_exiting:ExitingEnv", "interrupting": "gym_exiting:InterruptingEnv"},
        modules={"gym_exiting": EXITING},
    )
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "gym-exiting")
    return Registry()


def test_a_constructor_that_calls_sys_exit_is_a_bad_row(registry: Registry) -> None:
    with RowChecker(registry) as checker:
        check = checker.check({"name": "exiting"})
    assert not check.ok
    (problem,) = check.problems
    assert "building the env raised SystemExit: it called sys.exit(3)" in problem.reason


def test_ctrl_c_in_a_constructor_still_stops(registry: Registry) -> None:
    with RowChecker(registry) as checker, pytest.raises(KeyboardInterrupt):
        checker.check({"name": "interrupting"})
