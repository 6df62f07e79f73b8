"""The `openai.AsyncOpenAI` an agent program gets: bound to its episode by an in-memory
transport, so its requests reach nothing else (no socket, no proxy, no retries).

The SDK has ways around an `http_client`: the Realtime API and the Responses API's
`connect()` open a websocket of their own (to `websocket_base_url`, else the base URL), and
`with_options` can swap in another HTTP client or an identity exchange that fetches tokens
itself. `EpisodeOpenAI` refuses each of them at once, with `NotServedError`, before any
socket opens: every websocket path of the SDK reads `websocket_base_url` first, and that
read is the refusal.
"""

from __future__ import annotations

import threading
from typing import Any

import httpx
import openai

from ..errors import SwiftGymError
from .transport import Answer, EpisodeTransport

BASE_URL = "http://swift-gym.invalid/v1"
"""Never resolved: the transport answers every request in process."""

SERVED = (
    "an AgentEnv's client answers only chat.completions.create, in process (each call is a "
    "turn of the trainer's policy; nothing leaves the episode)"
)
UNSAFE_OPTIONS = ("http_client", "websocket_base_url", "workload_identity", "provider")
"""`with_options`/`copy` arguments that would send requests around the in-memory transport."""


class NotServedError(SwiftGymError, openai.OpenAIError):
    """The program asked its episode's client for something that would leave the process:
    a websocket (the Realtime API), another HTTP client, a token exchange."""


class EpisodeOpenAI(openai.AsyncOpenAI):
    """An `openai.AsyncOpenAI` that refuses every way out of its in-memory transport."""

    _copying_in: int | None = None
    """The thread inside `copy` (which reads `websocket_base_url` to pass it on), if any."""

    @property  # type: ignore[override]
    def websocket_base_url(self) -> None:
        if self._copying_in == threading.get_ident():
            return None
        raise NotServedError(
            f"{SERVED}: a websocket (the Realtime API, the Responses API's connect()) is not served"
        )

    @websocket_base_url.setter
    def websocket_base_url(self, value: Any) -> None:
        if value is not None:
            raise NotServedError(f"{SERVED}: websocket_base_url cannot be set")

    def copy(self, **options: Any) -> EpisodeOpenAI:  # type: ignore[override]
        """`with_options`: timeouts, headers, query and retries may change; nothing that
        reaches past the in-memory transport."""
        for name in UNSAFE_OPTIONS:
            value = options.get(name)
            if value is None or isinstance(value, openai.NotGiven):
                continue
            if not (name == "http_client" and value is self._client):
                raise NotServedError(f"{SERVED}: with_options({name}=...) is refused")
        self._copying_in = threading.get_ident()
        try:
            return super().copy(**options)  # type: ignore[no-any-return]
        finally:
            self._copying_in = None

    with_options = copy


def episode_client(answer: Answer) -> EpisodeOpenAI:
    """A client whose chat completions `answer` serves."""
    http = httpx.AsyncClient(transport=EpisodeTransport(answer), trust_env=False, timeout=None)
    return EpisodeOpenAI(api_key="swift-gym", base_url=BASE_URL, http_client=http, max_retries=0)
