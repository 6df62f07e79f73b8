"""The in-memory transport an agent program's `openai.AsyncOpenAI` speaks through.

Nothing listens: each request the client makes is a function call into its own episode, which
answers it with the policy's reply. So no other process, and no other episode, can reach it,
and a turn costs no socket, no HTTP parsing and no port. What is not a chat completion request
gets an OpenAI-shaped error response, which the SDK raises as its own `NotFoundError` or
`BadRequestError` in the program.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from ..errors import printable

MAX_BODY_BYTES = 64 * 1024 * 1024
"""A request body larger than this is refused unread (a runaway context)."""

Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""The episode's side: a chat completion request's JSON body in, a ChatCompletion out."""


class ClientError(Exception):
    """A request the episode refuses: its HTTP status and the message the program reads."""

    def __init__(self, status: int, message: str, param: str | None = None):
        super().__init__(message)
        self.status = status
        self.param = param


class EpisodeTransport(httpx.AsyncBaseTransport):
    """Answers `POST .../chat/completions` with `answer`, everything else with an error."""

    def __init__(self, answer: Answer):
        self._answer = answer

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            body = await _read(request)
            completion = await self._answer(body)
        except ClientError as error:
            return _error(request, error.status, str(error), error.param)
        return httpx.Response(
            200,
            content=json.dumps(completion, ensure_ascii=False).encode(),
            headers={"content-type": "application/json"},
            request=request,
        )


async def _read(request: httpx.Request) -> dict[str, Any]:
    """The request's JSON body, if it is a chat completion request we serve."""
    path = request.url.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        raise ClientError(
            404,
            f"this episode serves only POST /chat/completions, not "
            f"{printable(request.method, 20)} {printable(path, 200)}",
        )
    if request.method != "POST":
        method = printable(request.method, 20)
        raise ClientError(404, f"this episode serves only POST, not {method}")
    raw = await request.aread()
    if len(raw) > MAX_BODY_BYTES:
        raise ClientError(400, f"the body is {len(raw):,} bytes; at most {MAX_BODY_BYTES:,}")
    try:
        body = json.loads(raw)
    except ValueError as error:
        raise ClientError(400, f"the request body is not JSON: {error}") from None
    if not isinstance(body, dict):
        raise ClientError(400, "the request body must be a JSON object")
    if body.get("stream"):
        raise ClientError(
            400,
            "stream=True is not supported: the trainer's policy answers each call in one piece",
            "stream",
        )
    n = body.get("n", 1)
    if n not in (1, None):
        raise ClientError(
            400, f"n={printable(repr(n), 40)} is not supported: the policy gives one reply", "n"
        )
    if not isinstance(body.get("messages"), list) or not body["messages"]:
        raise ClientError(400, "messages must be a non-empty list", "messages")
    return body


def _error(request: httpx.Request, status: int, message: str, param: str | None) -> httpx.Response:
    kind = "not_found_error" if status == 404 else "invalid_request_error"
    payload = {"error": {"message": message, "type": kind, "param": param, "code": None}}
    return httpx.Response(status, json=payload, request=request)
