"""The adapter against verifiers 0.4.0's own API, in process: its harness loader finds the
in-process harness by id, its interception server takes the episode's client through the seam
the adapter uses, its chat dialect parses what the bridge returns (whole and streamed), and
every seat of an environment is pinned to the in-process harness and the subprocess runtime."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import verifiers.v1 as vf
from openai.types.chat import ChatCompletion
from verifiers.v1.configs.client import EvalClientConfig
from verifiers.v1.dialects.chat import ChatDialect
from verifiers.v1.interception import InterceptionServer
from verifiers.v1.runtimes import SubprocessConfig

from swift_gym_verifiers.bridge import EpisodeClient
from swift_gym_verifiers.episode import VerifiersEpisodeError, _env_config, result_of
from swift_gym_verifiers.harness import HARNESS_ID, SwiftGymHarness, SwiftGymHarnessConfig


class RecordingOpenAI:
    """Stands in for the AgentEnv's `openai.AsyncOpenAI`: records each create() call."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self.create))

    async def create(self, **request: Any) -> ChatCompletion:
        self.requests.append(request)
        call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        return ChatCompletion.model_validate(
            {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": request["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "tool_calls",
                        "message": {"role": "assistant", "content": "hi", "tool_calls": [call]},
                    }
                ],
            }
        )


BODY = {
    "model": "policy",
    "messages": [{"role": "user", "content": "2+2?"}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
    "temperature": 0.7,
    "stream": True,
    "stream_options": {"include_usage": True},
}


def test_verifiers_loads_the_in_process_harness_by_its_id() -> None:
    config = vf.harness_config_type(HARNESS_ID).model_validate({"id": HARNESS_ID})
    assert type(config) is SwiftGymHarnessConfig
    harness = vf.load_harness(config)
    assert type(harness) is SwiftGymHarness
    assert harness.EXECUTES_CODE is False and harness.NEEDS_CONTAINER is False


async def test_one_call_is_one_create_with_only_the_conversation() -> None:
    openai = RecordingOpenAI()
    bridge = EpisodeClient(openai)
    response = await bridge.get_response(ChatDialect(), dict(BODY), None)
    assert openai.requests == [{k: BODY[k] for k in ("model", "messages", "tools")}]
    assert response.message.content == "hi"
    assert [call.name for call in response.message.tool_calls] == ["f"]


async def test_a_streamed_call_is_answered_whole_as_events_verifiers_parses() -> None:
    openai = RecordingOpenAI()
    reply = await EpisodeClient(openai).relay(ChatDialect(), dict(BODY))
    parser = ChatDialect().stream_parser()
    async for chunk in reply.chunks:
        parser.feed(chunk)
    await reply.close()
    response = parser.finish()
    assert response.message.content == "hi"
    assert [call.name for call in response.message.tool_calls] == ["f"]
    assert len(openai.requests) == 1 and "stream" not in openai.requests[0]


def test_the_interception_server_takes_the_episode_client_for_its_config() -> None:
    server = InterceptionServer()
    config = EvalClientConfig(base_url="http://swift-gym.invalid/x", api_key_var="NONE")
    bridge = EpisodeClient(RecordingOpenAI())
    server.clients[config.model_dump_json()] = bridge
    assert server._client(config) is bridge


@pytest.mark.parametrize(("taskset_id", "seat"), [("sg_reverse", "agent"), ("sg_guess", "player")])
def test_every_seat_is_played_in_process_on_the_subprocess_runtime(
    taskset_id: str, seat: str
) -> None:
    config = vf.resolve_env_config(_env_config(taskset_id, "{}"))
    agent = getattr(config, seat)
    assert isinstance(agent.harness, SwiftGymHarnessConfig)
    assert isinstance(agent.runtime, SubprocessConfig)
    assert type(config.interception).__name__ == "InterceptionServerConfig"


def test_a_failed_episode_is_an_error_episode() -> None:
    error = vf.Error(type="HarnessError", message="boom")
    episode = SimpleNamespace(errors=[error], traces=[], ok=False)
    with pytest.raises(VerifiersEpisodeError, match="HarnessError: boom"):
        result_of("sg_reverse", 0, episode)
