"""`OpenAIPolicy` (`--policy openai`): replies from any OpenAI-compatible `/chat/completions`.

Works with `swift deploy`, vLLM, SGLang and hosted APIs. Each request has a hard timeout. A
request that could not connect, lost its connection, or got HTTP 408/409/429 or 5xx is retried
with exponential backoff (1, 2, 4, 8, 8 s: enough to ride out a server restart); one that timed
out is retried once at most, after a pause as long as its timeout, since the server may still be
working on it. When the retries run out, or the server answers another 4xx, `PolicyError` ends
that episode (status "error") and the run goes on, unless the endpoint is down (`stop_reason`).
The HTTP client lives from `prepare` to `close`, so one policy object serves run after run.

In an env that offers tools, every request carries them (`tools`, OpenAI's function tools), the
chat carries the earlier calls and their results as OpenAI's assistant `tool_calls` and `tool`
messages, and a response's `message.tool_calls` come back as the reply's calls (a response
with calls and no content is a reply). The server is untrusted: its calls are read by
`swift_gym.tool_calls` (at most 64, ids made unique and printable), each name cut at
`MAX_TOOL_NAME_CHARS`.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..errors import short_repr
from ..json_text import dumps as json_dumps
from ..replies import tool_calls
from ..tools.toolset import ToolCall, offered_tools
from ..tools.turns import assistant_message
from . import defaults, progress
from .errors import EndpointError, EndpointSetupError, PolicyError

if TYPE_CHECKING:
    from ..env import Env, Message
    from .policies import Reply

KEY_VARIABLES = ("SWIFT_GYM_API_KEY", "OPENAI_API_KEY")
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
RETRYABLE = frozenset({408, 409, 429})
DOWN_WINDOW = 3
"""The endpoint is down when this many requests in a row, each after its retries, could not
connect: no new episode is started then."""
_BACKOFF_BASE = 1.0
_BACKOFF_MAX = 8.0
_TIMEOUT_PAUSE_MAX = 30.0
_jitter = random.Random()  # never the global RNG, which episodes must not share


class _Failed(Exception):
    """A request that failed for good: its last transport error and how many attempts it took."""

    def __init__(self, error: BaseException, attempts: int):
        super().__init__(str(error))
        self.error = error
        self.attempts = attempts


def find_api_key(variable: str | None) -> str | None:
    """The key from `variable`, else from SWIFT_GYM_API_KEY or OPENAI_API_KEY; None if unset."""
    for name in (variable,) if variable else KEY_VARIABLES:
        value = os.environ.get(name)
        if value:
            return value
    return None


def check_base_url(url: str) -> str:
    """`url` without a trailing slash; `EndpointSetupError` unless it is an http(s) URL with a
    host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EndpointSetupError(
            f"base URL {url!r}: not an http:// or https:// URL; did you mean "
            f"http://{url.split('://', 1)[-1].lstrip('/')}?"
        )
    return url.rstrip("/")


USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")
"""The token counts of a response's `usage` a turn's record keeps (nothing else the server
sends: it is untrusted, and a record is no place for its extras)."""
FINISH_REASON_CHARS = 100
MAX_TOOL_NAME_CHARS = 65
"""A called tool's name is cut to this: one character longer than any tool's name may be, so a
cut name is still no tool's (the env answers it with an error)."""


def public_url(url: str) -> str:
    """`url` without credentials, query or fragment: what a record may keep of it."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def reply_details(payload: Any) -> dict[str, Any]:
    """A turn's `finish_reason` and `usage` (the three token counts), when the server gave
    them: why the reply ended (`length`: cut at max_tokens) and what it cost."""
    details: dict[str, Any] = {}
    try:
        reason = payload["choices"][0].get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        reason = None
    if isinstance(reason, str):
        details["finish_reason"] = reason[:FINISH_REASON_CHARS]
    usage = payload.get("usage") if isinstance(payload, Mapping) else None
    if isinstance(usage, Mapping):
        counts = {
            name: usage[name]
            for name in USAGE_FIELDS
            if type(usage.get(name)) is int and 0 <= usage[name] < 2**63
        }
        if counts:
            details["usage"] = counts
    return details


def reply_content(payload: Any) -> str:
    """`choices[0].message.content` as text (None -> "", text parts joined)."""
    try:
        content = payload["choices"][0]["message"].get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise PolicyError(f"malformed response: {short_repr(payload, 200)}") from None
    if content is None:
        return ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def reply_calls(payload: Any) -> list[ToolCall]:
    """The tool calls of `choices[0].message`, bounded (see the module docstring); [] when
    there are none or they cannot be read."""
    try:
        message = payload["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return []
    calls = tool_calls(message)
    return [
        ToolCall(call.id, call.name[:MAX_TOOL_NAME_CHARS], call.arguments)
        if len(call.name) > MAX_TOOL_NAME_CHARS
        else call
        for call in calls
    ]


def wire_messages(messages: list[Message]) -> list[Message]:
    """The chat as OpenAI's API takes it: a tool message is `{"role", "tool_call_id",
    "content"}` (the `name` the episode keeps is no field of OpenAI's tool messages)."""
    if not any(message.get("role") == "tool" for message in messages):
        return messages
    return [
        {key: message[key] for key in ("role", "tool_call_id", "content") if key in message}
        if message.get("role") == "tool"
        else message
        for message in messages
    ]


def _detail(error: BaseException) -> str:
    """The system's words for the error at the root of `error` ("Connection refused"), else the
    first non-empty message along its causes, else its type's name: never an empty detail."""
    chain: list[BaseException] = []
    seen: BaseException | None = error
    while seen is not None and len(chain) < 20:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for cause in reversed(chain):
        if isinstance(cause, OSError) and cause.errno:
            return os.strerror(cause.errno)
    return next((str(cause) for cause in chain if str(cause)), type(error).__name__)


def _connected(error: BaseException) -> bool:
    """Whether the request reached the server before it failed."""
    return not isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))


def _timed_out(error: BaseException) -> bool:
    return isinstance(error, (httpx.TimeoutException, asyncio.TimeoutError)) and _connected(error)


def _hint(status: int, base_url: str) -> str:
    """What to check when the API answers `status`, or ""."""
    if status == 404 and not base_url.endswith("/v1"):
        return "does the base URL end with /v1?"
    if status in (401, 403):
        return (
            "the key was refused (set SWIFT_GYM_API_KEY or OPENAI_API_KEY, or give the key: "
            "api_key=..., --api-key-env)"
        )
    return ""


def _attempts(count: int) -> str:
    return f"gave up after {count} attempt{'s' * (count != 1)}"


class OpenAIPolicy:
    """Sends the chat so far to a model behind an OpenAI-compatible API; returns its reply.

    `base_url` ends with `/v1` for `swift deploy` and vLLM (default: `$OPENAI_BASE_URL`, else
    `http://127.0.0.1:8000/v1`); `model` defaults to the one model the server lists; `api_key`
    to `$SWIFT_GYM_API_KEY`, else `$OPENAI_API_KEY`. Each reply is capped at `max_tokens`;
    `sampling` adds fields to every request (`{"top_p": 0.9, "seed": 0}`). The number of
    requests in flight is the run's `concurrency`, retries included.
    """

    name = "openai"

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        *,
        api_key: str | None = None,
        max_tokens: int = defaults.MAX_TOKENS,
        temperature: float | None = None,
        timeout: float = defaults.TIMEOUT,
        retries: int = defaults.RETRIES,
        sampling: Mapping[str, Any] | None = None,
    ):
        url = base_url or os.environ.get(BASE_URL_VARIABLE) or defaults.BASE_URL
        self.base_url = check_base_url(url)
        self.model = model
        self._chosen_model = model
        self.timeout = timeout
        self.retries = retries
        self.sampling: dict[str, Any] = {"max_tokens": max_tokens, **(sampling or {})}
        if temperature is not None:
            self.sampling["temperature"] = temperature
        self._key = api_key if api_key is not None else find_api_key(None)
        self._recent: deque[bool] = deque(maxlen=DOWN_WINDOW)  # did each request connect?
        self._http: httpx.AsyncClient | None = None
        self._connections = defaults.CONCURRENCY
        self._seeded = False

    def set_rollouts_per_seed(self, rollouts: int) -> None:
        """With several rollouts per seed, each request carries a `seed` drawn from the
        episode's RNG (itself seeded by the rollout's sampling seed), unless `sampling` fixes
        one: a server that honours it (vLLM) samples each rollout differently, and again the
        same way when the run is played again. The turn's record keeps it (`seed`)."""
        self._seeded = rollouts > 1

    def set_concurrency(self, episodes: int) -> None:
        """At most `episodes` requests in flight (the runner calls it before `prepare`): the
        connection pool holds that many, so even a request the server still works on after
        its timeout takes one of them until it ends."""
        self._connections = episodes

    def __repr__(self) -> str:
        return f"OpenAIPolicy(base_url={self.base_url!r}, model={self.model!r})"

    @property
    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
            self._http = httpx.AsyncClient(
                base_url=self.base_url + "/",
                headers=headers,
                timeout=httpx.Timeout(self.timeout),
                limits=httpx.Limits(
                    max_connections=self._connections, max_keepalive_connections=self._connections
                ),
            )
        return self._http

    def _describe(self, error: BaseException) -> str:
        if _timed_out(error):
            return f"no answer within {self.timeout:g} s"
        if not _connected(error):
            return f"nothing answers at {self.base_url} ({_detail(error)})"
        return f"request failed ({type(error).__name__}: {_detail(error)})"

    async def _send(
        self, method: str, path: str, tell: bool = False, **kwargs: Any
    ) -> tuple[httpx.Response, int]:
        """The response and the attempts it took, retried as the module docstring says;
        `_Failed` when no attempt got a response. `tell`: say on stderr that it retries."""
        timeouts = 0
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await asyncio.wait_for(
                    self._client.request(method, path, **kwargs), self.timeout
                )
            except (httpx.TransportError, asyncio.TimeoutError) as error:
                timeouts += _timed_out(error)
                if attempt > self.retries or timeouts > 1:
                    raise _Failed(error, attempt) from None
                pause = min(self.timeout, _TIMEOUT_PAUSE_MAX) if _timed_out(error) else 0.0
                if tell and attempt == 1:
                    retrying = f"retrying up to {self.retries} times (retries, --retries)"
                    progress.note("waiting", f"{self._describe(error)}; {retrying}")
            else:
                retryable = response.status_code in RETRYABLE or response.status_code >= 500
                if not retryable or attempt > self.retries:
                    return response, attempt
                pause = _retry_after(response)
            backoff = _BACKOFF_BASE * 2 ** (attempt - 1)
            await asyncio.sleep(max(pause, min(_BACKOFF_MAX, backoff) * _jitter.uniform(0.8, 1.2)))

    async def prepare(self) -> None:
        """Use the model given, or the one model the server lists at `/models`."""
        self._recent.clear()
        self.model = self._chosen_model
        if self.model:
            return
        url = f"{self.base_url}/models"
        try:
            response, _ = await self._send("GET", "models", tell=True)
        except _Failed as failed:
            if _timed_out(failed.error):
                raise EndpointError(f"no answer from {url} within {self.timeout:g} s") from None
            raise EndpointError(self._describe(failed.error)) from None
        status = response.status_code
        if status != 200:
            hint = _hint(status, self.base_url)
            if status == 404 and not hint:
                hint = (
                    "no model list there: is it an OpenAI-compatible API? (or give the model: "
                    "model=..., --model)"
                )
            if hint:  # a wrong URL or key: the user's to fix
                raise EndpointSetupError(f"{status} at {url}: {hint}")
            raise EndpointError(f"HTTP {status} at {url}: {short_repr(response.text, 200)}")
        try:
            ids = [item["id"] for item in response.json()["data"]]
        except Exception:
            raise EndpointError(
                f"{url} did not answer with a model list ({short_repr(response.text, 200)}); "
                "give the model (model=..., --model)"
            ) from None
        if len(ids) != 1:
            listed = ", ".join(map(str, ids)) or "none"
            served = listed if len(listed) <= 300 else listed[:297] + "..."
            raise EndpointSetupError(
                f"{self.base_url} serves {served}: pick one (model=..., --model)"
            )
        self.model = str(ids[0])

    def settings(self) -> dict[str, Any]:
        """What tells this policy's runs apart, for each record: the model, the base URL
        (without credentials), the temperature (None: the server's), max_tokens and any other
        sampling field."""
        return {
            "model": self.model,
            "base_url": public_url(self.base_url),
            "temperature": self.sampling.get("temperature"),
            **self.sampling,
        }

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> Reply:
        return (await self.reply_with_details(env, messages, rng))[0]

    async def reply_with_details(
        self, env: Env, messages: list[Message], rng: random.Random
    ) -> tuple[Reply, dict[str, Any]]:
        """The reply (its text, or an assistant message when it calls tools), and its
        `reply_details` for the turn's record."""
        body = {"model": self.model, "messages": wire_messages(messages), **self.sampling}
        seed = rng.getrandbits(31) if self._seeded and "seed" not in self.sampling else None
        if seed is not None:
            body["seed"] = seed
        tools = offered_tools(env)
        if tools:
            body["tools"] = list(tools)
        try:
            # Not httpx's json=: it encodes strict UTF-8, and a reply the model wrote may hold
            # a lone surrogate that the conversation sends back (JSON carries it as an escape).
            response, attempts = await self._send(
                "POST", "chat/completions", content=json_dumps(body).encode(), headers=_JSON
            )
        except _Failed as failed:
            self._recent.append(_connected(failed.error))
            reason = f"{self._describe(failed.error)}; {_attempts(failed.attempts)}"
            raise PolicyError(reason) from None
        self._recent.append(True)
        if response.status_code == 200:
            try:
                payload = response.json()
            except ValueError:
                raise PolicyError(
                    f"response is not JSON: {short_repr(response.text, 200)}"
                ) from None
            text, calls = reply_content(payload), reply_calls(payload)
            reply: Reply = assistant_message(text, calls) if calls else text
            details = reply_details(payload)
            return reply, details if seed is None else {"seed": seed, **details}
        hint = _hint(response.status_code, self.base_url)
        where = f" at {self.base_url}/chat/completions ({hint})" if hint else ""
        message = f"HTTP {response.status_code}{where}: {short_repr(response.text, 200)}"
        if attempts > 1:
            message += f"; {_attempts(attempts)}"
        raise PolicyError(message)

    def stop_reason(self) -> str | None:
        """Why no new episode should start: the last requests all failed to connect."""
        if len(self._recent) == DOWN_WINDOW and not any(self._recent):
            return (
                f"nothing answers at {self.base_url}: the last {DOWN_WINDOW} requests could not "
                "connect, each after its retries"
            )
        return None

    async def close(self) -> None:
        if self._http is not None:
            http, self._http = self._http, None
            await http.aclose()


_JSON = {"Content-Type": "application/json"}


def _retry_after(response: httpx.Response) -> float:
    """The server's `Retry-After` in seconds (bounded), else 0."""
    try:
        return min(_BACKOFF_MAX, max(0.0, float(response.headers.get("Retry-After", 0))))
    except ValueError:
        return 0.0
