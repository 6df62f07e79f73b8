"""swift-gym's FrozenLake as an OpenEnv `Environment`, served by openenv's own `create_fastapi_app`.

The baseline server of `bench_remote.py`. Written as openenv's docs describe an env: an `Action`
and an `Observation` model (pydantic, `extra="forbid"`), an `Environment` subclass with `reset`,
`step` and `state`, and `create_fastapi_app(factory, Action, Observation, max_concurrent_envs=N)`
run by uvicorn (its defaults, as openenv's server templates run it; logging at warning, as
`swift-gym serve` logs). The env inside is swift-gym's `frozen_lake`, so both servers do the same
FrozenLake work and send the same observation fields (`text`, `system_prompt`, `info`); only the
serving differs.

Two ways to host it, both openenv's own:
- `sync` (the way openenv's docs and examples write envs): `reset` and `step` are plain methods,
  which openenv's server runs on a thread of the session's own executor; the swift-gym env's
  coroutines run to completion on an event loop kept by this wrapper.
- `async`: `reset_async` and `step_async` overridden, which openenv's server awaits on its own
  loop: no thread hop, the cheapest way openenv offers (and no isolation: a slow step would
  stall every session, which is why `swift-gym serve` does not do it).

Run only by `bench_remote.py`, in a venv that has openenv (never the bench env: openenv pulls
~480 MB and downgrades Pillow there): `python openenv_frozen_lake.py --port P --mode sync`.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

import swift_gym


class FrozenLakeAction(Action):
    message: str = Field(description="the model's reply")


class FrozenLakeObservation(Observation):
    text: str = Field(description="what the model reads")
    system_prompt: str | None = None
    info: dict[str, Any] = Field(default_factory=dict)


class FrozenLakeEnvironment(Environment):
    """One session's FrozenLake; each reset's `env_config` and `seed` pick the lake."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # every session has its own instance and loop

    def __init__(self) -> None:
        super().__init__()
        self._loop = asyncio.new_event_loop()
        self._env: swift_gym.Env | None = None
        self._state = State(step_count=0)

    def _run(self, coroutine: Any) -> Any:
        return self._loop.run_until_complete(coroutine)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        env_config: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> FrozenLakeObservation:
        return self._run(self._reset(seed, episode_id, env_config))

    def step(self, action: FrozenLakeAction, timeout_s: float | None = None, **kwargs: Any):
        return self._run(self._step(action))

    async def _reset(self, seed, episode_id, env_config) -> FrozenLakeObservation:
        config = {"name": "frozen_lake", **(env_config or {})}
        if seed is not None:
            config["seed"] = seed
        if self._env is not None:
            await self._env.close()
        self._env = swift_gym.make(config)
        text, info, system_prompt = await self._env.reset()
        self._state = State(episode_id=episode_id, step_count=0)
        return FrozenLakeObservation(text=text, system_prompt=system_prompt, info=info)

    async def _step(self, action: FrozenLakeAction) -> FrozenLakeObservation:
        if self._env is None:
            raise RuntimeError("step before reset")
        messages = [{"role": "assistant", "content": action.message}]
        text, reward, done, info = await self._env.step(messages)
        self._state.step_count += 1
        return FrozenLakeObservation(text=text, info=info, reward=reward, done=done)

    async def reset_async(self, seed=None, episode_id=None, env_config=None, **kwargs):
        return await self._reset(seed, episode_id, env_config)

    async def step_async(self, action, timeout_s=None, **kwargs):
        return await self._step(action)

    @property
    def state(self) -> State:
        return self._state

    def close(self) -> None:
        if self._env is not None and not self._loop.is_closed():
            self._run(self._env.close())
        self._env = None
        if not self._loop.is_closed():
            self._loop.close()


class SyncFrozenLakeEnvironment(FrozenLakeEnvironment):
    """Only `reset` and `step` (openenv's base class supplies the async ones, which call them):
    openenv's server sees no async override and runs them on the session's executor thread."""

    reset_async = Environment.reset_async
    step_async = Environment.step_async


class AsyncFrozenLakeEnvironment(FrozenLakeEnvironment):
    """`reset_async` and `step_async` overridden: awaited on the server's own loop."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-sessions", type=int, default=300)
    parser.add_argument("--mode", choices=("sync", "async"), default="sync")
    args = parser.parse_args()
    env = SyncFrozenLakeEnvironment if args.mode == "sync" else AsyncFrozenLakeEnvironment
    app = create_fastapi_app(
        env, FrozenLakeAction, FrozenLakeObservation, max_concurrent_envs=args.max_sessions
    )
    import uvicorn

    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
