"""The env packages this repository ships, for the tests that need all of them installed
(tests/collections, tests/docs): a test that finds one missing says so instead of passing on
fewer envs."""

from __future__ import annotations

import swift_gym

SHIPPED = {
    "swift-gym",
    "swift-gym-frozen-lake",
    "swift-gym-gymnasium",
    "swift-gym-reasoning-gym",
    "swift-gym-textarena",
}
"""The distributions whose envs are shipped: the core and the four env packages."""


def shipped_envs() -> list[swift_gym.EnvSpec]:
    """The installed envs of the shipped distributions."""
    return [spec for spec in swift_gym.list_envs() if spec.distribution in SHIPPED]
