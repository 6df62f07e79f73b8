"""The `openai.AsyncOpenAI` an agent program gets: bound to its episode by an in-memory
transport, so its requests reach nothing else (no socket, no proxy, no retries)."""

from __future__ import annotations

import httpx
import openai

from .transport import Answer, EpisodeTransport

BASE_URL = "http://swift-gym.invalid/v1"
"""Never resolved: the transport answers every request in process."""


def episode_client(answer: Answer) -> openai.AsyncOpenAI:
    """A client whose chat completions `answer` serves."""
    http = httpx.AsyncClient(transport=EpisodeTransport(answer), trust_env=False, timeout=None)
    return openai.AsyncOpenAI(
        api_key="swift-gym", base_url=BASE_URL, http_client=http, max_retries=0
    )
