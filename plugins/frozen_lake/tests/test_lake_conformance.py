"""FrozenLake keeps the env contract: the swift-gym conformance kit, on every kind of config."""

from __future__ import annotations

from swift_gym.testing import check_env, conformance_tests
from swift_gym_frozen_lake import FrozenLakeEnv

MOVES = [f"<action>{move}</action>" for move in ("up", "down", "left", "right")]

CONFIGS = [
    {},
    {"seed": 3},
    {"seed": 1, "is_slippery": True},
    {"seed": 2, "max_steps": 5},
    {"map": "SFFF/FHFH/FFFH/HFFG"},
    {"seed": 4, "size": 8, "p": 0.9, "action_parsing": "upstream", "step_reward": -0.1},
    {"seed": 5, "text_style": "ms_swift", "action_parsing": "upstream"},
]

test_conformance = conformance_tests(
    FrozenLakeEnv,
    CONFIGS,
    ids=[
        "default",
        "seeded",
        "slippery",
        "max_steps",
        "explicit_map",
        "large_upstream",
        "ms_swift_drop_in",
    ],
    sample_replies=MOVES,
)


def test_the_registered_name_conforms_too():
    report = check_env("frozen_lake", [{"seed": 0}], sample_replies=MOVES)
    assert report.ok, str(report)
    assert report.env == "frozen_lake"
    assert report.steps > report.episodes  # the episodes went past the first move
