"""`RayEnv`: the caller's stand-in for an env that a Ray actor plays.

It looks like the env to whoever plays it (the evaluator, the `swift_gym` scheduler): `reset`,
`step` and `close` are remote calls on the actor's episode; `tools()`, `rewritten_context()`
and `max_turns_hint()` answer from what the actor sent with its last answer, so they cost no
call. Each answer's info carries `ray`: the node id and process id that played it.

An actor that dies (its node went away, its process was killed) ends this episode with a
`RayEnvError` saying so; the pool replaces the actor for the next episodes. An error the env
itself raised on the actor is raised here as the env's own exception.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...config import EnvConfig
from ...deployment import Deployment
from ...env import Env, Message
from ...errors import SwiftGymError
from ...steps import StepResult

if TYPE_CHECKING:
    from .pool import Actor, ActorPool


class RayEnvError(SwiftGymError, RuntimeError):
    """The Ray actor playing the episode is gone: this episode ends, the next get another."""


class RayEnv(Env):
    """An episode played by a Ray actor (made by `RayPlacement.open`, not by hand)."""

    deployment = Deployment(never_blocks=True)  # every call is awaited on Ray's futures

    def __init__(
        self,
        env_name: str,
        env_config: dict[str, Any],
        config: EnvConfig,
        pool: ActorPool,
        actor: Actor,
        key: int,
        hint: int | None,
    ):
        # no Env.__init__: `config` was validated by the caller already, and on the actor
        self.env_name = env_name
        self.env_config = env_config
        self.config = config
        self._pool = pool
        self._actor: Actor | None = actor
        self._key = key
        self._hint = hint
        self._view: dict[str, Any] = {"tools": None, "context": None, "where": actor.where}

    @property
    def where(self) -> dict[str, Any]:
        """The node id and pid of the actor that plays this episode."""
        return dict(self._view["where"])

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        # ms-swift's request holds the row, tokenizer-side objects too: not sent to the actor
        (observation, info, system), self._view = await self._call("reset", self._key)
        return observation, self._mark(info), system

    async def step(
        self, messages: list[Message]
    ) -> tuple[str, float, bool, dict[str, Any]] | StepResult:
        answer, self._view = await self._call("step", self._key, list(messages))
        if isinstance(answer, StepResult):
            self._mark(answer.info)
            return answer
        if isinstance(answer, tuple) and len(answer) == 4:
            observation, reward, done, info = answer
            return observation, reward, done, self._mark(info)
        return answer  # type: ignore[no-any-return]  # the caller's checks name what is wrong

    async def close(self) -> None:
        actor, self._actor = self._actor, None
        if actor is None:
            return
        try:
            await self._on(actor, "close", self._key)
        finally:
            self._pool.release(actor)

    def tools(self) -> Sequence[Any]:
        return self._view["tools"] or []

    def rewritten_context(self) -> list[Message] | None:
        return self._view["context"]  # type: ignore[no-any-return]

    def max_turns_hint(self) -> int | None:
        return self._hint

    async def oracle_reply_async(self) -> Any:
        """The env's `oracle_reply()`, asked of the actor (the oracle policy awaits this)."""
        return await self._call("query", self._key, "oracle_reply")

    async def sample_replies_async(self) -> Any:
        """The env's `sample_replies()`, asked of the actor (the random policy awaits this)."""
        return await self._call("query", self._key, "sample_replies")

    def oracle_reply(self) -> Any:
        import ray

        return self._unwrap(lambda: ray.get(self._ref("query", self._key, "oracle_reply")))

    def sample_replies(self) -> Any:
        import ray

        return self._unwrap(lambda: ray.get(self._ref("query", self._key, "sample_replies")))

    def _mark(self, info: Any) -> Any:
        if isinstance(info, dict):
            info["ray"] = dict(self._view["where"])
        return info

    def _ref(self, method: str, *args: Any) -> Any:
        if self._actor is None:
            raise RayEnvError(f"env {self.env_name!r} on Ray: the episode is closed")
        return getattr(self._actor.handle, method).remote(*args)

    async def _call(self, method: str, *args: Any) -> Any:
        if self._actor is None:
            raise RayEnvError(f"env {self.env_name!r} on Ray: the episode is closed")
        return await self._on(self._actor, method, *args)

    async def _on(self, actor: Actor, method: str, *args: Any) -> Any:
        ref = getattr(actor.handle, method).remote(*args)
        future = asyncio.wrap_future(ref.future())
        return await self._unwrap_async(future, actor)

    async def _unwrap_async(self, future: Any, actor: Actor) -> Any:
        import ray.exceptions as errors

        try:
            return await future
        except errors.RayTaskError as error:  # the env raised: raise its own exception
            raise _cause(error) from None
        except (errors.RayActorError, errors.NodeDiedError, errors.ObjectLostError) as error:
            self._lost(actor)
            raise RayEnvError(self._died(actor, error)) from None

    def _unwrap(self, get: Any) -> Any:
        import ray.exceptions as errors

        actor = self._actor
        try:
            return get()
        except errors.RayTaskError as error:
            raise _cause(error) from None
        except (errors.RayActorError, errors.NodeDiedError, errors.ObjectLostError) as error:
            if actor is not None:
                self._lost(actor)
                raise RayEnvError(self._died(actor, error)) from None
            raise

    def _lost(self, actor: Actor) -> None:
        self._pool.drop(actor)
        if self._actor is actor:
            self._actor = None  # nothing to close there any more

    def _died(self, actor: Actor, error: BaseException) -> str:
        where = actor.where
        first = str(error).strip().splitlines()[0].rstrip(".") if str(error).strip() else ""
        return (
            f"env {self.env_name!r}: the Ray actor playing this episode is gone (node "
            f"{where.get('node_id', '?')}, pid {where.get('pid', '?')}): "
            f"{type(error).__name__}: {first[:300]}. Only its episodes end; the next get a "
            "new actor"
        )


def _cause(error: Any) -> BaseException:
    """The env's own exception inside Ray's wrapper, else the wrapper."""
    cause = getattr(error, "cause", None)
    return cause if isinstance(cause, BaseException) else error
