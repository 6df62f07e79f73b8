"""`OpenAIPolicy` (`--policy openai`): replies from any OpenAI-compatible `/chat/completions`.

Works with `swift deploy`, vLLM, SGLang and hosted APIs. Requests go through the `openai` SDK's
`AsyncOpenAI` (the core's `agent` extra), which retries a request that could not connect, lost
its connection, or got HTTP 408/409/429 or 5xx, `retries` times with exponential backoff (0.5,
1, 2, 4, 8, 8 s, each up to a quarter shorter, or the server's Retry-After, at most 8 s here):
enough to ride out a server restart. Under it, `openai_http.BoundedClient` bounds each attempt:
a hard `timeout`, the whole answer read within it; at most `max_response_bytes` of the answer
read; and a request that timed out is retried once at most, after a pause as long as its
timeout (at most 30 s), since the server may still be working on it. When the retries run
out, or the server answers another 4xx, `PolicyError` ends that episode (status "error") and
the run goes on, unless the endpoint is down (`stop_reason`). The client lives from `prepare`
to `close`, so one policy object serves run after run.

What is sent is swift-gym's choice, not the SDK's: the body as swift-gym's JSON writes it (a
lone surrogate a model wrote goes as its escape, which strict UTF-8 cannot carry), the key
given or none (never one the SDK finds by itself), no telemetry headers. Messages, records and
the SDK's own logs name the endpoint without its credentials (`public_url`).

In an env that offers tools, every request carries them (`tools`, OpenAI's function tools), the
chat carries the earlier calls and their results as OpenAI's assistant `tool_calls` and `tool`
messages, and a response's `message.tool_calls` come back as the reply's calls (a response
with calls and no content is a reply). The server is untrusted: its calls are read by
`swift_gym.tool_calls` (at most 64, ids made unique and printable), each name cut at
`MAX_TOOL_NAME_CHARS`.
"""

from __future__ import annotations

import inspect
import os
import re
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..episode import Reply
from ..errors import short_repr
from ..install_hints import extra_hint
from ..json_text import encode as json_encode
from ..json_text import loads as json_loads
from ..replies import tool_calls
from ..tools.toolset import ToolCall, offered_tools
from . import defaults, progress
from .errors import EndpointError, EndpointSetupError, PolicyError
from .openai_http import (
    ATTEMPTS,
    MAX_RESPONSE_BYTES,
    Attempts,
    BoundedClient,
    connected,
    timed_out,
)

if TYPE_CHECKING:
    import random

    from ..env import Env, Message

KEY_VARIABLES = ("SWIFT_GYM_API_KEY", "OPENAI_API_KEY")
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
DOWN_WINDOW = 3
"""The endpoint is down when this many requests in a row, each after its retries, could not
connect: no new episode is started then."""
_TELEMETRY = re.compile("x-stainless-", re.IGNORECASE)
_TELEMETRY_PER_REQUEST = ("X-Stainless-Retry-Count", "X-Stainless-Read-Timeout")


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
        shown = _without_secrets(url)
        raise EndpointSetupError(
            f"base URL {shown!r}: not an http:// or https:// URL; did you mean "
            f"http://{shown.split('://', 1)[-1].lstrip('/')}?"
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
    """`url` without credentials, query or fragment: what a record or a message may show."""
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


def _openai() -> Any:
    """The `openai` package, or `EndpointSetupError` saying how to install it."""
    try:
        import openai
    except ImportError:
        raise EndpointSetupError(
            f"OpenAIPolicy (--policy openai) needs the openai package: {extra_hint('agent')}"
        ) from None
    return openai


class _Failed(Exception):
    """A request that got no usable answer: what its attempts met."""

    def __init__(self, attempts: Attempts, error: BaseException):
        super().__init__(type(error).__name__)
        self.attempts = attempts
        self.error = attempts.error or error


class OpenAIPolicy:
    """Sends the chat so far to a model behind an OpenAI-compatible API; returns its reply.

    `base_url` ends with `/v1` for `swift deploy` and vLLM (default: `$OPENAI_BASE_URL`, else
    `http://127.0.0.1:8000/v1`); `model` defaults to the one model the server lists; `api_key`
    to `$SWIFT_GYM_API_KEY`, else `$OPENAI_API_KEY`. Each reply is capped at `max_tokens`;
    `sampling` adds fields to every request (`{"top_p": 0.9, "seed": 0}`). The number of
    requests in flight is the run's `concurrency`, retries included. An answer bigger than
    `max_response_bytes` fails its request unread. Needs the `openai` package.
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
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ):
        url = base_url or os.environ.get(BASE_URL_VARIABLE) or defaults.BASE_URL
        self.base_url = check_base_url(url)
        self._public = public_url(self.base_url)
        self._openai = _openai()
        self.model = model
        self._chosen_model = model
        self.timeout = timeout
        self.retries = retries
        self.max_response_bytes = max_response_bytes
        self.sampling: dict[str, Any] = {"max_tokens": max_tokens, **(sampling or {})}
        if temperature is not None:
            self.sampling["temperature"] = temperature
        self._key = api_key if api_key is not None else find_api_key(None)
        self._recent: deque[bool] = deque(maxlen=DOWN_WINDOW)  # did each request connect?
        self._api: Any = None  # the SDK's AsyncOpenAI, from the first request to `close`
        self._options: dict[str, Any] = {}  # of every request
        self._body = "content"
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
        return f"OpenAIPolicy(base_url={self._public!r}, model={self.model!r})"

    def _client(self) -> Any:
        """The SDK's client over a `BoundedClient`. The URL's credentials, if any, go as Basic auth
        (as httpx sends them) and never into the SDK's URL, which its logs show. The key is the
        one Authorization sent, and without a key none is: never one the SDK finds by itself
        (OPENAI_ADMIN_KEY, OPENAI_CUSTOM_HEADERS' in newer SDKs)."""
        if self._api is None:
            url = httpx.URL(self.base_url)
            basic = httpx.BasicAuth(url.username, url.password) if url.userinfo else None
            http = BoundedClient(
                deadline=self.timeout,
                max_bytes=self.max_response_bytes,
                retries=self.retries,
                auth=basic,
                timeout=httpx.Timeout(self.timeout),
                limits=httpx.Limits(
                    max_connections=self._connections, max_keepalive_connections=self._connections
                ),
            )
            openai, key = self._openai, self._key
            api = openai.AsyncOpenAI(
                api_key=key or "none",  # not sent without a key: see below
                base_url=_without_credentials(self.base_url) + "/",
                max_retries=self.retries,
                timeout=self.timeout,
                http_client=http,
            )
            # no telemetry headers (the SDK's version, the OS, Python's: nothing the server needs,
            # and httpx's work per request grows with each header); the key given, or none
            telemetry = [name for name in api.default_headers if _TELEMETRY.match(name)]
            headers = {name: openai.Omit() for name in telemetry}
            if key:
                headers["Authorization"] = f"Bearer {key}"
            self._api = api.copy(default_headers=headers)
            each = {name: openai.Omit() for name in _TELEMETRY_PER_REQUEST}
            self._options = {"headers": each if key else {**each, "Authorization": openai.Omit()}}
            # bytes go as `content` since openai 2.x (before: as `body`, deprecated there)
            takes = inspect.signature(self._api.post).parameters
            self._body = "content" if "content" in takes else "body"
        return self._api

    def _describe(self, error: BaseException) -> str:
        if timed_out(error):
            return f"no answer within {self.timeout:g} s"
        if not connected(error):
            return f"nothing answers at {self._public} ({_detail(error)})"
        return f"request failed ({type(error).__name__}: {_detail(error)})"

    def _too_big(self) -> str:
        limit = f"{self.max_response_bytes:,} bytes"
        return f"the answer is over {limit} (max_response_bytes): not read"

    async def _request(
        self, path: str, body: bytes | None = None, tell: bool = False
    ) -> tuple[httpx.Response, int]:
        """The answer to GET `path` (POST `body`), the SDK's retries done, and the attempts it
        took; `_Failed` when none got one or the client ended them. `tell`: say on stderr that
        it retries."""
        client = self._client()
        attempts = Attempts(self._tell_retrying if tell else None)
        token = ATTEMPTS.set(attempts)
        try:
            if body is None:
                response = await client.get(path, cast_to=httpx.Response, options=self._options)
            else:
                sent = {self._body: body}
                response = await client.post(
                    path, cast_to=httpx.Response, options=self._options, **sent
                )
        except self._openai.APIStatusError as error:
            if attempts.stop is not None:
                raise _Failed(attempts, error) from None
            response = error.response
        except self._openai.APIConnectionError as error:
            raise _Failed(attempts, error) from None
        finally:
            ATTEMPTS.reset(token)
        return response, attempts.count

    def _tell_retrying(self, error: BaseException) -> None:
        retrying = f"retrying up to {self.retries} times (retries, --retries)"
        progress.note("waiting", f"{self._describe(error)}; {retrying}")

    async def prepare(self) -> None:
        """Use the model given, or the one model the server lists at `/models`."""
        self._recent.clear()
        self.model = self._chosen_model
        if self.model:
            return
        url = f"{self._public}/models"
        try:
            response, _ = await self._request("models", tell=True)
        except _Failed as failed:
            if failed.attempts.stop == "size":
                raise EndpointError(f"{url}: {self._too_big()}") from None
            if timed_out(failed.error):
                raise EndpointError(f"no answer from {url} within {self.timeout:g} s") from None
            raise EndpointError(self._describe(failed.error)) from None
        status = response.status_code
        if status != 200:
            hint = _hint(status, self._public)
            if status == 404 and not hint:
                hint = (
                    "no model list there: is it an OpenAI-compatible API? (or give the model: "
                    "model=..., --model)"
                )
            if hint:  # a wrong URL or key: the user's to fix
                raise EndpointSetupError(f"{status} at {url}: {hint}")
            raise EndpointError(f"HTTP {status} at {url}: {short_repr(response.text, 200)}")
        try:
            ids = [item["id"] for item in json_loads(response.content)["data"]]
        except Exception:
            raise EndpointError(
                f"{url} did not answer with a model list ({short_repr(response.text, 200)}); "
                "give the model (model=..., --model)"
            ) from None
        if len(ids) != 1:
            listed = ", ".join(map(str, ids)) or "none"
            served = listed if len(listed) <= 300 else listed[:297] + "..."
            raise EndpointSetupError(
                f"{self._public} serves {served}: pick one (model=..., --model)"
            )
        self.model = str(ids[0])

    def settings(self) -> dict[str, Any]:
        """What tells this policy's runs apart, for each record: the model, the base URL
        (without credentials), the temperature (None: the server's), max_tokens and any other
        sampling field."""
        return {
            "model": self.model,
            "base_url": self._public,
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
            response, attempts = await self._request("chat/completions", json_encode(body))
        except _Failed as failed:
            count = failed.attempts.count
            if failed.attempts.stop == "size":
                self._recent.append(True)
                raise PolicyError(
                    self._too_big() + (f"; {_attempts(count)}" if count > 1 else "")
                ) from None
            self._recent.append(connected(failed.error))
            raise PolicyError(f"{self._describe(failed.error)}; {_attempts(count)}") from None
        self._recent.append(True)
        if response.status_code == 200:
            try:
                payload = json_loads(response.content)
            except ValueError:
                raise PolicyError(
                    f"response is not JSON: {short_repr(response.text, 200)}"
                ) from None
            text, calls = reply_content(payload), reply_calls(payload)
            reply = Reply(text, tuple(calls))  # read once: the runner takes it as it is
            details = reply_details(payload)
            return reply, details if seed is None else {"seed": seed, **details}
        hint = _hint(response.status_code, self._public)
        where = f" at {self._public}/chat/completions ({hint})" if hint else ""
        message = f"HTTP {response.status_code}{where}: {short_repr(response.text, 200)}"
        if attempts > 1:
            message += f"; {_attempts(attempts)}"
        raise PolicyError(message)

    def stop_reason(self) -> str | None:
        """Why no new episode should start: the last requests all failed to connect."""
        if len(self._recent) == DOWN_WINDOW and not any(self._recent):
            return (
                f"nothing answers at {self._public}: the last {DOWN_WINDOW} requests could not "
                "connect, each after its retries"
            )
        return None

    async def close(self) -> None:
        if self._api is not None:
            api, self._api = self._api, None
            await api.close()


def _without_secrets(url: str) -> str:
    """`url`, which may not parse, without a `user:password@` or a query: for messages."""
    url = re.sub(r"^((?:[^:/?#]+:)?//)?[^/?#@]*@", r"\1", url)
    return url.split("?", 1)[0].split("#", 1)[0]


def _without_credentials(url: str) -> str:
    """`url` without its user and password (sent as Basic auth instead, never logged)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
