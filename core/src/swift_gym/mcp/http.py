"""The streamable-HTTP transport, watched: a POST whose response breaks means the server is gone.

The SDK drops a tool call whose response stream ends early (a server that died mid-call): the
call would wait for its timeout. Here every POST's response runs through `Watched`, which calls
`on_broken` when the connection fails or the response stream breaks, so the session's pending
calls end at once with an error that says so. (The long-lived GET stream for server
notifications is not watched: it may time out idle, and the SDK reconnects it.)

httpx logs every request's URL at INFO (`HTTP Request: POST <url> "HTTP/1.1 200 OK"`), and the
SDK's client logs its URL at DEBUG; an operator's URL may hold a token in its query or a
password. From the first HTTP session on, `PublicUrls` shows each URL those two loggers write
without its query, fragment and user:password (for every httpx client of the process: a log
line is the only thing it changes).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from .servers import HttpServer, public_url

_URL = re.compile(r"https?://[^\s'\"<>]+")
_LOGGERS = ("httpx", "mcp.client.streamable_http")


class PublicUrls(logging.Filter):
    """Rewrites each URL in a log record (its message and arguments) to its public form."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            if isinstance(record.msg, str) and "://" in record.msg:
                record.msg = _public(record.msg)
            if isinstance(record.args, tuple):
                record.args = tuple(
                    _public(str(arg)) if isinstance(arg, (str, httpx.URL)) else arg
                    for arg in record.args
                )
        except Exception:  # a log line is never lost to this
            pass
        return True


def _public(text: str) -> str:
    return _URL.sub(lambda found: _public_url(found.group()), text) if "://" in text else text


def _public_url(url: str) -> str:
    try:
        return public_url(url)
    except ValueError:  # not a URL urlsplit reads (a bad IPv6 host): none of it shown
        return url.split("://", 1)[0] + "://[url]"


PUBLIC_URLS = PublicUrls()
for _name in _LOGGERS:
    logging.getLogger(_name).addFilter(PUBLIC_URLS)

Broken = Callable[[BaseException], None]
BROKEN = (httpx.NetworkError, httpx.RemoteProtocolError)
"""What says the server is gone: a failed connect, read or write, a response cut off. Not a
timeout: a hung call is the call timeout's to end, and the server's other tools may work."""


class Watched(httpx.AsyncBaseTransport):
    """An httpx transport that reports a broken POST (connection or response stream)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, on_broken: Broken):
        self.inner = inner
        self.on_broken = on_broken

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST":
            return await self.inner.handle_async_request(request)
        try:
            response = await self.inner.handle_async_request(request)
        except BROKEN as error:
            self.on_broken(error)
            raise
        response.stream = _WatchedStream(response.stream, self.on_broken)  # type: ignore[arg-type]
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class _WatchedStream(httpx.AsyncByteStream):
    def __init__(self, inner: Any, on_broken: Broken):
        self.inner = inner
        self.on_broken = on_broken

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.inner:
                yield chunk
        except BROKEN as error:
            self.on_broken(error)
            raise

    async def aclose(self) -> None:
        await self.inner.aclose()


@contextlib.asynccontextmanager
async def http_streams(spec: HttpServer, on_broken: Broken) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) of a session with the server at `spec.url`, with the
    operator's headers (the SDK's newer client takes an httpx client; its older function, in
    SDKs before `streamable_http_client`, a factory of one)."""
    from mcp.client import streamable_http

    headers = {key: value.get_secret_value() for key, value in spec.headers.items()}
    timeout = httpx.Timeout(spec.connect_timeout_seconds, read=spec.call_timeout_seconds + 5)

    def client(*_: Any, **__: Any) -> httpx.AsyncClient:
        transport = Watched(httpx.AsyncHTTPTransport(), on_broken)
        return httpx.AsyncClient(headers=headers, timeout=timeout, transport=transport)

    newer = getattr(streamable_http, "streamable_http_client", None)
    if newer is not None:
        async with client() as http, newer(spec.url, http_client=http) as (read, write, _):
            yield read, write
        return
    async with streamable_http.streamablehttp_client(
        spec.url, headers=headers, httpx_client_factory=client
    ) as (read, write, _):
        yield read, write
