"""`EnvHost`, the Ray actor's class, called directly (no Ray): an episode whose `open` its
caller stopped waiting for (cancelled) is closed by `abandon`, whether that arrives after the
episode was opened or while it was still being built."""

from __future__ import annotations

import asyncio

import pytest

from swift_gym.ray.host import EnvHost

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
    assert played.stats()["open"] == 0 and played._abandoned == set()
    with pytest.raises(LookupError, match="closed"):
        await played.reset(key)


async def test_an_open_that_fails_leaves_no_token_behind() -> None:
    played = host()
    opening = asyncio.ensure_future(played.open({"seed": 0, "size": -3}, "bad"))
    await played.abandon("bad")
    with pytest.raises(Exception, match="size"):
        await opening
    assert played._abandoned == set() and played.stats()["open"] == 0
