"""An episode whose opening on a Ray actor is cancelled (its caller stopped waiting) is closed
on the actor: no env, thread or slot of it is left there (`cancel_scenario.py`, on a real
cluster in a network namespace of its own). It passes 20 runs in a row beside CPU burners on
both cores (tests/under_load.py; docs/development.md, "Races and hangs")."""

from __future__ import annotations

from typing import Any

import netns
import pytest


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return netns.run("cancel_scenario.py")  # type: ignore[no-any-return]


def test_cancelled_openings_leave_no_episode_on_the_actor(report: dict[str, Any]) -> None:
    opened = report["outcomes"].count("opened")  # closed by the scenario at once
    # episodes the actor built though their caller had given up: the case under test
    in_flight = report["played"] - 1 - opened
    assert in_flight >= 1, report
    assert report["open_after"] == 1  # only the episode that plays on
    assert report["open_at_end"] == 0


def test_cancelled_openings_give_their_slots_back(report: dict[str, Any]) -> None:
    assert report["free_while_one_plays"] == report["shape_episodes"] - 1
