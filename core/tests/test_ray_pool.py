"""The actor pool's sizing, with a fake actor class (no Ray): how many actors it asks for while
episodes wait. tests/ray plays the pool on a real cluster."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

import pytest

from swift_gym.placement.ray.pool import MAX_CREATING, ActorPool
from swift_gym.placement.ray.settings import ActorShape


class FakeActorClass:
    """Stands in for `ray.remote(EnvHost)`: records each actor asked for; each answers `where`
    once the test says so."""

    def __init__(self) -> None:
        self.started: list[concurrent.futures.Future[dict[str, Any]]] = []

    def options(self, **options: Any) -> FakeActorClass:
        return self

    def remote(self, env_name: str) -> Any:
        answer: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()
        self.started.append(answer)

        class Where:
            @staticmethod
            def remote() -> Any:
                class Ref:
                    @staticmethod
                    def future() -> Any:
                        return answer

                return Ref

        class Handle:
            where = Where

        return Handle


async def waiting(pool: ActorPool, episodes: int) -> list[asyncio.Task[Any]]:
    tasks = [asyncio.create_task(pool.acquire()) for _ in range(episodes)]
    await asyncio.sleep(0.05)  # every acquire is waiting, every actor asked for
    return tasks


@pytest.mark.parametrize(
    ("slots", "episodes", "asked"),
    [(16, 4, 1), (16, 17, 2), (4, 8, 2), (1, 3, 3), (1, 10, MAX_CREATING)],
)
async def test_the_pool_asks_for_the_actors_the_waiting_episodes_fill(
    slots: int, episodes: int, asked: int
) -> None:
    actors = FakeActorClass()
    pool = ActorPool("env", ActorShape((("CPU", 1.0),), slots), actors)
    tasks = await waiting(pool, episodes)
    assert len(actors.started) == asked
    for answer in actors.started:
        answer.set_result({"node_id": "n", "pid": 1})
    if episodes <= asked * slots:
        got = await asyncio.wait_for(asyncio.gather(*tasks), 5)
        assert len({id(actor) for actor in got}) == asked
    for task in tasks:
        task.cancel()


async def test_an_actor_that_frees_a_slot_serves_the_next_episode_without_a_new_one() -> None:
    actors = FakeActorClass()
    pool = ActorPool("env", ActorShape((("CPU", 1.0),), 2), actors)
    first = await waiting(pool, 2)
    assert len(actors.started) == 1
    actors.started[0].set_result({"node_id": "n", "pid": 1})
    one, two = await asyncio.wait_for(asyncio.gather(*first), 5)
    assert one is two
    later = asyncio.create_task(pool.acquire())
    await asyncio.sleep(0.05)
    assert len(actors.started) == 2  # both slots held: one more actor asked for
    pool.release(one)
    assert await asyncio.wait_for(later, 5) is one  # the freed slot came first
