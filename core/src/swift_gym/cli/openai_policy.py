"""`--policy openai`: replies from any OpenAI-compatible `/chat/completions` endpoint.

Works with `swift deploy`, vLLM, SGLang and hosted APIs. Each request has a hard timeout; a
transport error, a timeout, HTTP 408/409/429 or 5xx is retried with backoff; when the retries
run out, or the server answers 4xx, `PolicyError` ends that episode (status "error") and the
run goes on.
"""

from __future__ import annotations

import asyncio
import os
import random
from typing import TYPE_CHECKING, Any

import httpx

from ..errors import short_repr
from .errors import CommandError
from .policies import PolicyError

if TYPE_CHECKING:
    from ..env import Env, Message

KEY_VARIABLES = ("SWIFT_GYM_API_KEY", "OPENAI_API_KEY")
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
"""Where `swift deploy` and vLLM listen by default."""
RETRYABLE = frozenset({408, 409, 429})
_BACKOFF_BASE = 0.5
_BACKOFF_MAX = 8.0


def api_key(variable: str | None) -> str | None:
    """The key from `variable`, else from SWIFT_GYM_API_KEY or OPENAI_API_KEY; None if unset."""
    for name in (variable,) if variable else KEY_VARIABLES:
        value = os.environ.get(name)
        if value:
            return value
    return None


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


def _describe(error: Exception) -> str:
    """`request timed out (ReadTimeout)` or `request failed (ConnectError: ...)`."""
    timed_out = isinstance(error, (httpx.TimeoutException, asyncio.TimeoutError))
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return f"request {'timed out' if timed_out else 'failed'} ({detail})"


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
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.sampling = sampling
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.AsyncClient(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        )

    async def prepare(self) -> None:
        """Use `--model`, or the one model the server lists at `/models`."""
        if self.model:
            return
        try:
            response = await asyncio.wait_for(self._client.get("models"), self.timeout)
            response.raise_for_status()
            ids = [item["id"] for item in response.json()["data"]]
        except Exception as error:
            raise CommandError(
                f"could not list the models at {self.base_url}/models "
                f"({type(error).__name__}: {error}); pass --model"
            ) from None
        if len(ids) != 1:
            listed = ", ".join(ids) or "none"
            raise CommandError(f"{self.base_url} serves {listed}: pick one with --model")
        self.model = ids[0]

    async def reply(self, env: Env, messages: list[Message], rng: random.Random) -> str:
        body = {"model": self.model, "messages": messages, **self.sampling}
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                await asyncio.sleep(min(_BACKOFF_MAX, _BACKOFF_BASE * 2 ** (attempt - 1)))
            try:
                response = await asyncio.wait_for(
                    self._client.post("chat/completions", json=body), self.timeout
                )
            except (httpx.TransportError, asyncio.TimeoutError) as error:
                last = _describe(error)
                continue
            if response.status_code == 200:
                try:
                    payload = response.json()
                except ValueError:
                    raise PolicyError(
                        f"response is not JSON: {short_repr(response.text, 200)}"
                    ) from None
                return reply_content(payload)
            last = f"HTTP {response.status_code}: {short_repr(response.text, 200)}"
            if response.status_code not in RETRYABLE and response.status_code < 500:
                raise PolicyError(last)
        attempts = self.retries + 1
        raise PolicyError(f"{last}; gave up after {attempts} attempt{'s' * (attempts != 1)}")

    async def close(self) -> None:
        await self._client.aclose()
