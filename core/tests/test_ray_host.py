"""`EnvHost`, the Ray actor's class, called directly (no Ray): an episode whose `open` its
caller stopped waiting for (cancelled) is closed by `abandon`, whether that arrives after the
episode was opened or while it was still being built."""

from __future__ import annotations

import asyncio

import pytest

from swift_gym.placement.ray.host import ABANDONED_KEPT, EnvHost

pytest.importorskip("swift_gym_frozen_lake")


def host() -> EnvHost:
    made = EnvHost("frozen_lake")
    made._where = {"node_id": "node", "pid": 1}  # what Ray's runtime context would say
    return made


async def test_abandon_closes_an_episode_already_open() -> None:
    played = host()
    kept, _, _ = await played.open({"seed": 0}, "kept")
    await played.open({"seed": 1}, "dropped")
    assert played.stats()["open"] == 2
    await played.abandon("dropped")
    assert played.stats()["open"] == 1
    await played.reset(kept)  # the other episode plays on
    await played.close(kept)
    assert played.stats() == {"node_id": "node", "pid": 1, "open": 0, "played": 2}


async def test_abandon_before_the_open_ends_closes_it_once_built() -> None:
    played = host()
    opening = asyncio.ensure_future(played.open({"seed": 0}, "early"))
    await played.abandon("early")  # arrives while the env is being built
    key, _, _ = await opening
    assert played.stats()["open"] == 0 and not played._abandoned
    with pytest.raises(LookupError, match="closed"):
        await played.reset(key)


async def test_an_open_that_fails_leaves_no_token_behind() -> None:
    played = host()
    opening = asyncio.ensure_future(played.open({"seed": 0, "size": -3}, "bad"))
    await played.abandon("bad")
    with pytest.raises(Exception, match="size"):
        await opening
    assert not played._abandoned and played.stats()["open"] == 0


async def test_abandoned_tokens_whose_open_never_comes_are_bounded() -> None:
    played = host()
    for index in range(ABANDONED_KEPT + 5):  # their opens failed before they reached the actor
        await played.abandon(f"lost-{index}")
    assert len(played._abandoned) == ABANDONED_KEPT
    assert "lost-0" not in played._abandoned and f"lost-{ABANDONED_KEPT + 4}" in played._abandoned
    await played.abandon("late")  # the newest still closes its episode once it is built
    key, _, _ = await played.open({"seed": 0}, "late")
    assert played.stats()["open"] == 0 and "late" not in played._abandoned
    with pytest.raises(LookupError, match="closed"):
        await played.reset(key)
