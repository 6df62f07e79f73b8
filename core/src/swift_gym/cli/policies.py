"""Who writes the replies in `swift-gym eval`: random, oracle, or a model behind an API.

A policy gets the env (for optional methods such as `oracle_reply`), the chat so far (what a
model sees) and the episode's own RNG, and returns the reply text. A policy that cannot answer
raises `PolicyError`: that episode ends with status "error", and the run goes on. A policy that
can no longer answer at all (its endpoint is down) says so in `stop_reason()`, and the runner
starts no new episode.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..env import Env, Message

GENERIC_REPLIES: tuple[str, ...] = (
    "<action>up</action>",
    "<action>down</action>",
    "<action>left</action>",
    "<action>right</action>",
    "<action>wait</action>",
    "<action></action>",
    "I am not sure what to do.",
    "",
)
"""What `random` picks from for envs without `sample_replies()`: the `<action>` tags of
grid envs such as FrozenLake, and replies no env should accept (to exercise invalid actions)."""


class PolicyError(Exception):
    """The policy could not produce a reply for this episode (the message says why)."""


class Policy(Protocol):
    name: str

    async def prepare(self) -> None:
        """Get ready before the first episode (e.g. ask an API for its model)."""

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> str:
        """The reply to `messages` (the chat so far, ending with the env's observation)."""

    def stop_reason(self) -> str | None:
        """Why no new episode should start (e.g. nothing answers at the API), or None."""

    async def close(self) -> None:
        """Release what `prepare` opened."""


class _Local:
    """A policy that needs no set-up, holds nothing and can always answer."""

    async def prepare(self) -> None:
        return None

    def stop_reason(self) -> str | None:
        return None

    async def close(self) -> None:
        return None


class RandomPolicy(_Local):
    """Each turn, a uniform draw from the env's `sample_replies()`, else `GENERIC_REPLIES`."""

    name = "random"

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> str:
        choices = tuple(env.sample_replies()) or GENERIC_REPLIES
        return rng.choice(choices)


class OraclePolicy(_Local):
    """The env's own reference policy: `env.oracle_reply()`."""

    name = "oracle"

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> str:
        try:
            reply: Any = env.oracle_reply()
        except NotImplementedError as error:
            raise PolicyError(f"{type(env).__name__} has no oracle: {error}") from None
        except Exception as error:
            raise PolicyError(f"oracle_reply() raised {type(error).__name__}: {error}") from None
        if not isinstance(reply, str):
            raise PolicyError(f"oracle_reply() returned {type(reply).__name__}, not str")
        return reply
