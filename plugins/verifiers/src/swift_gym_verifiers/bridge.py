"""The model client verifiers' interception server uses: the episode's own OpenAI client.

verifiers sends every model call of a rollout through its interception server, which hands
it to a `verifiers.Client` made from the run's client config (normally an HTTP client to a
provider). Here that client is `EpisodeClient`: each call becomes exactly one
`chat.completions.create` on the `AgentEnv`'s client, so one call of the environment's
harness is one turn the trainer's policy plays. Only the conversation goes over (`messages`,
`tools`): sampling is the trainer's. A streamed request is answered whole and framed as
server-sent events by verifiers' own dialect.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from verifiers.v1.clients.client import Client, RelayReply

FORWARDED = ("model", "messages", "tools")
"""The request fields the policy sees; everything else (sampling, streaming) stays here."""


class EpisodeClient(Client):
    """A `verifiers.Client` answering through one episode's `openai.AsyncOpenAI`."""

    def __init__(self, openai_client: Any):
        self.openai_client = openai_client
        self.calls = 0

    async def get_response(
        self,
        dialect: Any,
        body: dict,
        sampling: Any,
        session_id: str | None = None,
        turn: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        request = {key: body[key] for key in FORWARDED if body.get(key)}
        self.calls += 1
        completion = await self.openai_client.chat.completions.create(**request)
        raw = completion.model_dump(mode="json", exclude_none=True)
        response = dialect.parse_response(dialect.validate_response(raw))
        response.raw = raw
        return response

    async def relay(
        self,
        dialect: Any,
        body: dict,
        session_id: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> RelayReply:
        response = await self.get_response(dialect, body, None, session_id, headers=headers)
        events = dialect.stream_events(response.raw)

        async def chunks() -> AsyncIterator[bytes]:
            for event in events:
                yield event

        async def close() -> None:
            return None

        return RelayReply("text/event-stream", chunks(), close)
