"""The Gymnasium ids this package wraps, and the swift-gym name of each: a static list.

`gymnasium.make("some.module:Env")` imports an arbitrary module, so no id ever comes from a
config or a reply: each env class names its own id from this list, and `make_gym` refuses any
other. Standard library only, so the tests can read it without importing Gymnasium.
"""

from __future__ import annotations

PREFIX = "gymnasium."

GYM_IDS: tuple[str, ...] = (
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "Taxi-v4",
    "CliffWalking-v1",
    "CliffWalkingSlippery-v1",
    "Blackjack-v1",
)
"""Every id this package passes to `gymnasium.make` (Gymnasium 1.4; `Taxi-v3` and other older
ids raise DeprecatedEnv there)."""

ENV_CLASSES: dict[str, str] = {
    "FrozenLake-v1": "swift_gym_gymnasium.frozen_lake:FrozenLakeEnv",
    "FrozenLake8x8-v1": "swift_gym_gymnasium.frozen_lake:FrozenLake8x8Env",
    "Taxi-v4": "swift_gym_gymnasium.taxi:TaxiEnv",
    "CliffWalking-v1": "swift_gym_gymnasium.cliff_walking:CliffWalkingEnv",
    "CliffWalkingSlippery-v1": "swift_gym_gymnasium.cliff_walking:CliffWalkingSlipperyEnv",
    "Blackjack-v1": "swift_gym_gymnasium.blackjack:BlackjackEnv",
}
"""The class of each id, as "module:attribute": imported when the env is first used."""

DESCRIPTIONS: dict[str, str] = {
    "FrozenLake-v1": "Gymnasium FrozenLake-v1: cross the 4x4 (or 8x8) ice to G, miss the holes",
    "FrozenLake8x8-v1": "Gymnasium FrozenLake8x8-v1: cross the 8x8 ice to G, miss the holes",
    "Taxi-v4": "Gymnasium Taxi-v4: pick a passenger up and drop them at their destination",
    "CliffWalking-v1": "Gymnasium CliffWalking-v1: walk to G along a cliff (-100 a fall)",
    "CliffWalkingSlippery-v1": "Gymnasium CliffWalkingSlippery-v1: the cliff walk, slippery",
    "Blackjack-v1": "Gymnasium Blackjack-v1: hit or stick against the dealer",
}
"""What `swift-gym list` shows for each env."""


def env_name(gym_id: str) -> str:
    """The swift-gym name of a Gymnasium id: `gymnasium.Taxi-v4`."""
    return PREFIX + gym_id


ENV_NAMES: tuple[str, ...] = tuple(env_name(gym_id) for gym_id in GYM_IDS)
