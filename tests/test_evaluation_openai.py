"""`swift_gym.evaluate` with an `OpenAIPolicy`, from Python, against a real HTTP server on
127.0.0.1 (the scripted server of `openai_server.py`, in a process of its own)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_eval_servers import Server, free_port, servers, start_server  # noqa: F401 (fixture)

import swift_gym
from swift_gym.evaluation import EndpointError, EndpointSetupError, OpenAIPolicy


@pytest.fixture(autouse=True)
def direct_to_localhost(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy, key or base URL from the caller's environment."""
    for name in list(os.environ):
        if "proxy" in name.lower() or name in ("OPENAI_API_KEY", "SWIFT_GYM_API_KEY"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


def test_an_openai_policy_plays_through_a_real_server(
    servers: list[Server],  # noqa: F811
    tmp_path: Path,
) -> None:
    server = start_server(tmp_path / "log.jsonl")
    servers.append(server)
    policy = OpenAIPolicy(base_url=server.url)  # the model: the one the server lists
    result = swift_gym.evaluate("frozen_lake", policy, episodes=8, concurrency=3)
    assert result.success_rate == 1.0
    assert result.statuses == {"goal": 8}
    assert {record["policy"] for record in result.records} == {"openai"}
    requests = server.requests()
    assert len(requests) == sum(record["num_turns"] for record in result.records)
    assert {event["max_tokens"] for event in requests} == {256}  # the default cap
    assert max(event["active"] for event in requests) <= 3  # concurrency bounds requests
    again = swift_gym.evaluate("frozen_lake", policy, episodes=2, seed_start=8)  # reusable
    assert again.success_rate == 1.0


def test_max_tokens_and_sampling_reach_every_request(
    servers: list[Server],  # noqa: F811
    tmp_path: Path,
) -> None:
    server = start_server(tmp_path / "log.jsonl")
    servers.append(server)
    policy = OpenAIPolicy(base_url=server.url, model="scripted", max_tokens=32)
    assert swift_gym.evaluate("frozen_lake", policy, episodes=2).success_rate == 1.0
    assert {event["max_tokens"] for event in server.requests()} == {32}


def test_a_dead_endpoint_stops_the_run_without_raising(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    policy = OpenAIPolicy(base_url=url, model="m", retries=0)
    result = swift_gym.evaluate("frozen_lake", policy, episodes=40, concurrency=2)
    assert result.stopped is not None and "nothing answers at" in result.stopped
    assert result.not_played > 0
    assert result.statuses["not_played"] == result.not_played
    assert result.failed_episodes == result.episodes  # what it tried failed; nothing else ran


def test_an_endpoint_that_cannot_be_used_is_a_swift_gym_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(EndpointError, match="nothing answers at") as caught:
        swift_gym.evaluate("frozen_lake", OpenAIPolicy(base_url=url, retries=0), episodes=1)
    assert isinstance(caught.value, swift_gym.SwiftGymError)
    assert isinstance(caught.value, ConnectionError)
    with pytest.raises(EndpointSetupError, match="not an http"):
        OpenAIPolicy(base_url="127.0.0.1:8000/v1")
