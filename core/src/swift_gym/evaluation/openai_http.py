"""The HTTP client under `OpenAIPolicy`'s `openai.AsyncOpenAI`: what the SDK does not bound.

The SDK retries (which errors and statuses, how often, how long between); this client, its
`http_client`, bounds each attempt: it ends within its deadline with the whole answer read (a
server that trickles bytes cannot hold it longer, as it can hold a read timeout), reads at most
`max_bytes` of the answer, decoded (a bigger one, or a body that inflates past it, is not read
further; checked at each decoded piece, and 64 KiB of gzip decode to 64 MiB at most), and lets
a server's Retry-After make a retry wait `RETRY_AFTER_MAX` seconds at most.
A request whose attempts met a second timeout, or an answer too big, fails at once: the client
answers it with `x-should-retry: false`, the SDK's own signal, and `Attempts.stop` says why.
What the attempts of one request met (how many, the last error) is kept in the `Attempts` that
`ATTEMPTS` holds while it runs: the SDK sends each attempt from its caller's own task.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

MAX_RESPONSE_BYTES = 16 * 2**20
"""The most of one answer read (decoded), by default: a bigger one fails its request, unread."""
RETRY_AFTER_MAX = 8.0
"""The longest a server's Retry-After makes a retry wait (seconds)."""
TIMEOUT_PAUSE_MAX = 30.0
"""The longest pause before the one retry of a request that timed out (seconds)."""
STOPPED = 499
"""The status of the answer that tells the SDK a request failed for good (`_stopped`)."""
_T = TypeVar("_T")


def connected(error: BaseException) -> bool:
    """Whether the request reached the server before it failed."""
    return not isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))


def timed_out(error: BaseException) -> bool:
    """Whether the server took too long to answer (not: to accept the connection)."""
    return isinstance(error, (httpx.TimeoutException, asyncio.TimeoutError)) and connected(error)


@dataclass
class Attempts:
    """What the attempts of one request met, as the client under the SDK saw them."""

    tell: Callable[[BaseException], None] | None = None
    """Called with the first attempt's error when it is retried (the model list's wait)."""
    count: int = 0
    error: BaseException | None = None
    """The last error that got no answer (refused, lost, timed out)."""
    timeouts: int = 0
    resume: float = 0.0
    """`time.monotonic()` before which no attempt starts: the pause after a timeout."""
    stop: str | None = None
    """Why the client ended the SDK's retries: "timeout" (a second one), "size"."""


ATTEMPTS: ContextVar[Attempts | None] = ContextVar("swift_gym_openai_attempts", default=None)
"""The request in progress in this task: the SDK sends it from the caller's own task."""


class BoundedClient(httpx.AsyncClient):
    """httpx's client with the bounds of the module docstring. Each answer is read whole here
    and handed up as a new response (nothing above streams); its headers as `_kept_headers`
    says. `retries`: the SDK's, to know whether a first failure is retried (`Attempts.tell`)."""

    def __init__(self, *, deadline: float, max_bytes: int, retries: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.deadline = deadline
        self.max_bytes = max_bytes
        self.retries = retries

    async def send(
        self, request: httpx.Request, *, stream: bool = False, **kwargs: Any
    ) -> httpx.Response:
        attempts = ATTEMPTS.get() or Attempts()
        attempts.count += 1
        pause = attempts.resume - time.monotonic()
        if pause > 0:
            await asyncio.sleep(pause)
        try:
            return await _within(self.deadline, self._read(request, attempts, kwargs))
        except (httpx.TransportError, asyncio.TimeoutError) as error:
            attempts.error = error
            if timed_out(error):
                attempts.timeouts += 1
                if attempts.timeouts > 1:
                    return _stopped(request, attempts, "timeout")
                attempts.resume = time.monotonic() + min(self.deadline, TIMEOUT_PAUSE_MAX)
            if attempts.tell is not None and attempts.count == 1 and self.retries:
                attempts.tell(error)
            if isinstance(error, httpx.TransportError):
                raise
            raise httpx.ReadTimeout("no answer in time", request=request) from error

    async def _read(
        self, request: httpx.Request, attempts: Attempts, kwargs: dict[str, Any]
    ) -> httpx.Response:
        response = await super().send(request, stream=True, **kwargs)
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_bytes:
                return _stopped(request, attempts, "size")
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self.max_bytes:
                    return _stopped(request, attempts, "size")
                chunks.append(chunk)
        finally:
            await response.aclose()
        headers = response.headers
        if not _REWRITTEN.isdisjoint(headers.keys()):
            headers = _kept_headers(headers)
        return httpx.Response(
            response.status_code,
            headers=headers,
            content=b"".join(chunks),
            request=request,
            extensions=response.extensions,
        )


if sys.version_info >= (3, 11):

    async def _within(seconds: float, awaitable: Awaitable[_T]) -> _T:
        """`await awaitable`, `TimeoutError` after `seconds`, in the caller's own task."""
        async with asyncio.timeout(seconds):
            return await awaitable

else:

    async def _within(seconds: float, awaitable: Awaitable[_T]) -> _T:
        return await asyncio.wait_for(awaitable, seconds)


_REWRITTEN = frozenset(
    {
        "content-encoding",  # the body is decoded: the SDK must not decode it again
        "transfer-encoding",  # nor read it in chunks
        "x-should-retry",  # the server's say on retries: the SDK's rules decide
        "retry-after",  # kept, bounded
        "retry-after-ms",
    }
)
"""Answer headers that `_kept_headers` rewrites (the others go to the SDK as they came)."""


def _kept_headers(headers: httpx.Headers) -> httpx.Headers:
    """The answer's headers as the SDK reads them (see `_REWRITTEN`), without a length (of the
    encoded body; httpx sets the decoded one's)."""
    kept = headers.copy()
    for name in (*_REWRITTEN, "content-length"):
        if name in kept:
            del kept[name]
    pause = _retry_after(headers)
    if pause > 0:
        kept["retry-after"] = f"{pause:g}"
    return kept


def _retry_after(headers: httpx.Headers) -> float:
    """The server's `Retry-After` in seconds, at most `RETRY_AFTER_MAX`, else 0."""
    try:
        return min(RETRY_AFTER_MAX, max(0.0, float(headers.get("retry-after", 0))))
    except ValueError:
        return 0.0


def _stopped(request: httpx.Request, attempts: Attempts, why: str) -> httpx.Response:
    """An answer the SDK does not retry, for a request that failed for good (`why`)."""
    attempts.stop = why
    return httpx.Response(STOPPED, headers={"x-should-retry": "false"}, request=request)
