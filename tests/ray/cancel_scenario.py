"""Episodes whose opening is cancelled while the actor builds them (a caller that stops
waiting: a timeout, Ctrl-C): the actor opens them all the same, and must close them. Prints JSON
last for test_ray_cancel.py (run through `netns.run`)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from local_cluster import cluster

ATTEMPTS = 40
"""Openings cancelled after 0, 0.2, 0.4 ... 7.8 ms: some before the call leaves this process,
some while the actor builds the env or its answer travels back, some after it arrived (those
open, and are closed here). Which ones fall where depends on the machine's load; the test needs
only some in flight."""


async def scenario(address: str) -> dict[str, Any]:
    import ray

    from swift_gym.placement.ray.cluster import RayPlacement

    placement = RayPlacement(address)
    placement.connect()
    try:
        env = await placement.open("frozen_lake", {"seed": 0})  # the actor, started
        await env.reset()
        outcomes = []
        for attempt in range(ATTEMPTS):
            opening = asyncio.ensure_future(placement.open("frozen_lake", {"seed": attempt}))
            await asyncio.sleep(attempt * 0.0002)
            opening.cancel()
            try:
                opened = await opening
            except asyncio.CancelledError:
                outcomes.append("cancelled")
            else:
                outcomes.append("opened")
                await opened.close()
        (actor,) = placement.pools()["frozen_lake"].actors
        deadline = time.monotonic() + 20
        stats = ray.get(actor.handle.stats.remote())
        while stats["open"] > 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            stats = ray.get(actor.handle.stats.remote())
        free = actor.free
        await env.close()
        return {
            "outcomes": outcomes,
            "open_after": stats["open"],
            "played": stats["played"],
            "free_while_one_plays": free,
            "shape_episodes": placement.pools()["frozen_lake"].shape.episodes,
            "open_at_end": ray.get(actor.handle.stats.remote())["open"],
        }
    finally:
        placement.shutdown()


def main() -> None:
    with cluster(workers=1, cpus=2) as started:
        print(json.dumps(asyncio.run(scenario(started.address))))


if __name__ == "__main__":
    main()
