"""Who writes the replies: random, oracle, a Python function, or a model behind an API (`openai`).

A policy gets the env (for optional methods such as `oracle_reply`), the chat so far (what a
model sees) and the episode's own RNG, and returns the reply: its text, or an assistant message
dict holding tool calls (OpenAI's shape), or an `episode.Reply`; the runner reads it once into a
`Reply` (`as_reply`). A policy that
cannot answer raises `PolicyError`: that episode ends with status "error", and the run goes on.
A policy that can no longer answer at all (its endpoint is down) says so in `stop_reason()`,
and the runner starts no new episode. `as_policy` turns what `evaluate(policy=...)` accepts
into a `Policy`.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..episode import Reply, ReplyShapeError
from ..tools.samples import garbage_calls, valid_call
from ..tools.toolset import offered_tools
from .errors import EvaluationError, PolicyError

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

VALID_CALL_SHARE = 0.5
"""How often `random` makes a valid call in a tool env without `sample_replies()`; the other
draws are garbage calls (unknown tool, arguments not JSON or not matching) or prose."""


def as_reply(value: Any, who: str) -> Reply:
    """A policy's reply (text, an assistant message, or a `Reply`) as the typed `Reply`, read
    once. Raises PolicyError, naming `who`, when it is none of these."""
    try:
        return Reply.of(value, who)
    except ReplyShapeError as error:
        raise PolicyError(str(error)) from None


class Policy(Protocol):
    """What the runner plays with. Any object with these members is one."""

    name: str

    async def prepare(self) -> None:
        """Get ready before the first episode (e.g. ask an API for its model)."""

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> Reply:
        """The reply to `messages` (the chat so far, ending with the env's observation, or
        with the tool messages that answered the last reply's calls)."""

    def stop_reason(self) -> str | None:
        """Why no new episode should start (e.g. nothing answers at the API), or None."""

    async def close(self) -> None:
        """Release what `prepare` opened.

        A policy may also have `set_concurrency(episodes)`, called before `prepare` with the
        number of episodes that will run at once (`OpenAIPolicy` sizes its connection pool);
        `set_rollouts_per_seed(k)`, called before it with the rollouts each seed gets
        (`OpenAIPolicy` then sends each request a seed drawn from the episode's RNG);
        `settings()`, a JSON dict each record keeps as `policy_settings` (the model and how it
        samples); and `reply_with_details(env, messages, rng)`, the reply and a dict of fields
        for its turn's record (`finish_reason`, `usage`), used instead of `reply`.
        """


class _Local:
    """A policy that needs no set-up, holds nothing and can always answer."""

    async def prepare(self) -> None:
        return None

    def stop_reason(self) -> str | None:
        return None

    async def close(self) -> None:
        return None


class RandomPolicy(_Local):
    """Each turn, a uniform draw from the env's `sample_replies()` (texts or messages with tool
    calls); else, in a tool env, a call made up from the tools' schemas (`VALID_CALL_SHARE`)
    or a garbage one (`tools.samples`); else one of `GENERIC_REPLIES`."""

    name = "random"

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> Reply:
        remote = getattr(env, "sample_replies_async", None)  # an env played elsewhere (Ray)
        choices = tuple(await remote() if callable(remote) else env.sample_replies())
        if choices:
            return as_reply(rng.choice(choices), "sample_replies()")
        tools = offered_tools(env)
        if not tools:
            return Reply(rng.choice(GENERIC_REPLIES))
        call_id = f"call_{rng.getrandbits(32):08x}"
        call = valid_call(tools, rng, call_id) if rng.random() < VALID_CALL_SHARE else None
        if call is None:
            garbage = [*garbage_calls(tools).values(), None]
            call = rng.choice(garbage)
            if call is None:
                return Reply(rng.choice(GENERIC_REPLIES))
            call = {**call, "id": call_id}
        return as_reply({"role": "assistant", "content": "", "tool_calls": [call]}, self.name)


class OraclePolicy(_Local):
    """The env's own reference policy: `env.oracle_reply()`, or `oracle_reply_async()` where
    the env is played elsewhere (a Ray actor; a served env, whose server gives the reply).

    An env with no oracle for any episode, known only once it is reset (a served env whose
    server serves none: its error has `every_episode` set), fails its episode, and no new
    episode starts. An env whose oracle has no reply for one episode only (a reasoning-gym
    item with no stored answer) fails that episode, and the run goes on.
    """

    name = "oracle"

    def __init__(self) -> None:
        self._none: str | None = None

    async def prepare(self) -> None:
        self._none = None

    def stop_reason(self) -> str | None:
        return self._none

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> Reply:
        try:
            remote = getattr(env, "oracle_reply_async", None)  # an env played elsewhere
            reply: Any = await remote() if callable(remote) else env.oracle_reply()
        except NotImplementedError as error:
            if getattr(error, "every_episode", False):
                self._none = self._none or f"no oracle: {error}"
            raise PolicyError(f"{type(env).__name__} has no oracle: {error}") from None
        except Exception as error:
            raise PolicyError(f"oracle_reply() raised {type(error).__name__}: {error}") from None
        return as_reply(reply, "oracle_reply()")


class CallablePolicy(_Local):
    """Replies from `function(messages, env)`, async or not: an in-process model in one function.
    It returns the reply's text, or an assistant message dict with `tool_calls` (see `Reply`).

    `messages` is a copy of the chat so far (system prompt, then the env's observations and the
    replies), `env` the episode's env. An async function (or one returning an awaitable) lets
    `concurrency` episodes wait on it at once; a plain function is called on the event loop's
    thread, one reply at a time (right for a model that must not be called from several
    threads, but nothing else runs meanwhile). What it raises ends only that episode.
    """

    def __init__(self, function: Callable[..., Any], name: str | None = None):
        self.function = function
        self.name = name or getattr(function, "__name__", None) or type(function).__name__

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> Reply:
        reply = self.function(list(messages), env)
        if inspect.isawaitable(reply):
            reply = await reply
        return as_reply(reply, self.name)


BUILTIN_POLICIES = ("random", "oracle")


def as_policy(policy: Any) -> Policy:
    """`"random"`, `"oracle"`, a `Policy` (such as `OpenAIPolicy`) or a callable, as a `Policy`."""
    if isinstance(policy, str):
        if policy == "random":
            return RandomPolicy()
        if policy == "oracle":
            return OraclePolicy()
        if policy == "openai":
            raise EvaluationError(
                "policy 'openai': pass swift_gym.evaluation.OpenAIPolicy(base_url=..., "
                "model=...) instead of the name"
            )
        raise EvaluationError(
            f"unknown policy {policy!r}: give 'random', 'oracle', an OpenAIPolicy(...) or a "
            "function (messages, env) -> str or message"
        )
    if all(hasattr(policy, part) for part in ("name", "prepare", "reply", "stop_reason", "close")):
        return policy  # type: ignore[no-any-return]
    if callable(policy):
        return CallablePolicy(policy)
    raise EvaluationError(
        f"{type(policy).__name__} is not a policy: give 'random', 'oracle', an "
        "OpenAIPolicy(...) or a function (messages, env) -> str or message"
    )
