"""`--policy openai`: replies from any OpenAI-compatible `/chat/completions` endpoint.

Works with `swift deploy`, vLLM, SGLang and hosted APIs. Each request has a hard timeout. A
request that could not connect, lost its connection, or got HTTP 408/409/429 or 5xx is retried
with exponential backoff (1, 2, 4, 8, 8 s: enough to ride out a server restart); one that timed
out is retried once at most, after a pause as long as its timeout, since the server may still be
working on it. When the retries run out, or the server answers another 4xx, `PolicyError` ends
that episode (status "error") and the run goes on, unless the endpoint is down (`stop_reason`).
"""

from __future__ import annotations

import asyncio
import os
import random
from collections import deque
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from ..errors import short_repr
from ..json_text import dumps as json_dumps
from .errors import EXIT_PROBLEMS, CommandError
from .policies import PolicyError

if TYPE_CHECKING:
    from ..env import Env, Message

KEY_VARIABLES = ("SWIFT_GYM_API_KEY", "OPENAI_API_KEY")
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
"""Where `swift deploy` and vLLM listen by default."""
RETRYABLE = frozenset({408, 409, 429})
DOWN_WINDOW = 3
"""The endpoint is down when this many requests in a row, each after its retries, could not
connect: no new episode is started then."""
_BACKOFF_BASE = 1.0
_BACKOFF_MAX = 8.0
_TIMEOUT_PAUSE_MAX = 30.0
_jitter = random.Random()  # never the global RNG, which episodes must not share


class EndpointError(CommandError):
    """The API cannot be used (nothing answers, it errors): exit code 1, not a usage error."""

    exit_code = EXIT_PROBLEMS


class _Failed(Exception):
    """A request that failed for good: its last transport error and how many attempts it took."""

    def __init__(self, error: BaseException, attempts: int):
        super().__init__(str(error))
        self.error = error
        self.attempts = attempts


def api_key(variable: str | None) -> str | None:
    """The key from `variable`, else from SWIFT_GYM_API_KEY or OPENAI_API_KEY; None if unset."""
    for name in (variable,) if variable else KEY_VARIABLES:
        value = os.environ.get(name)
        if value:
            return value
    return None


def check_base_url(url: str) -> str:
    """`url` without a trailing slash; a usage error unless it is an http(s) URL with a host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CommandError(
            f"--base-url {url!r}: not an http:// or https:// URL; did you mean "
            f"http://{url.split('://', 1)[-1].lstrip('/')}?"
        )
    return url.rstrip("/")


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
        return "the key was refused (set SWIFT_GYM_API_KEY or OPENAI_API_KEY, or --api-key-env)"
    return ""


def _attempts(count: int) -> str:
    return f"gave up after {count} attempt{'s' * (count != 1)}"


class OpenAIPolicy:
    """Sends the chat so far to the model and returns its reply."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str | None,
        key: str | None,
        timeout: float,
        retries: int,
        sampling: dict[str, Any],
        connections: int,
    ):
        self.base_url = check_base_url(base_url)
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.sampling = sampling
        self._recent: deque[bool] = deque(maxlen=DOWN_WINDOW)  # did each request connect?
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.AsyncClient(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        )

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
                    _tell(f"{self._describe(error)}; retrying (--retries {self.retries})")
            else:
                retryable = response.status_code in RETRYABLE or response.status_code >= 500
                if not retryable or attempt > self.retries:
                    return response, attempt
                pause = _retry_after(response)
            backoff = _BACKOFF_BASE * 2 ** (attempt - 1)
            await asyncio.sleep(max(pause, min(_BACKOFF_MAX, backoff) * _jitter.uniform(0.8, 1.2)))

    async def prepare(self) -> None:
        """Use `--model`, or the one model the server lists at `/models`."""
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
                hint = "no model list there: is it an OpenAI-compatible API? (or pass --model)"
            if hint:  # a wrong URL or key: the user's to fix
                raise CommandError(f"{status} at {url}: {hint}")
            raise EndpointError(f"HTTP {status} at {url}: {short_repr(response.text, 200)}")
        try:
            ids = [item["id"] for item in response.json()["data"]]
        except Exception:
            raise EndpointError(
                f"{url} did not answer with a model list ({short_repr(response.text, 200)}); "
                "pass --model"
            ) from None
        if len(ids) != 1:
            listed = ", ".join(map(str, ids)) or "none"
            served = listed if len(listed) <= 300 else listed[:297] + "..."
            raise CommandError(f"{self.base_url} serves {served}: pick one with --model")
        self.model = str(ids[0])

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> str:
        body = {"model": self.model, "messages": messages, **self.sampling}
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
            return reply_content(payload)
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
        await self._client.aclose()


_JSON = {"Content-Type": "application/json"}


def _tell(message: str) -> None:
    from rich.text import Text

    from .console import stderr

    stderr().print(Text.assemble(("waiting: ", "yellow"), message))


def _retry_after(response: httpx.Response) -> float:
    """The server's `Retry-After` in seconds (bounded), else 0."""
    try:
        return min(_BACKOFF_MAX, max(0.0, float(response.headers.get("Retry-After", 0))))
    except ValueError:
        return 0.0
