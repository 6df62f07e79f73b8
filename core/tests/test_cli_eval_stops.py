"""The pieces of `eval` that stop a run early, in-process: the stats of episodes not played,
the runner's one `Stop` as a policy that gives up drives it, and error details never empty."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx

from swift_gym.evaluation.episodes import EpisodeSpec
from swift_gym.evaluation.openai import _detail
from swift_gym.evaluation.runner import run_episodes
from swift_gym.evaluation.stats import summarize


def test_episodes_not_played_are_counted_apart_and_not_in_the_rates() -> None:
    records = [
        {"status": "goal", "success": True, "total_reward": 1.0, "num_turns": 3},
        {"status": "error", "error": "boom", "num_turns": 0},
        {"status": "not_played", "num_turns": 0},
    ]
    summary = summarize(records, unrecorded=5)
    assert summary["episodes"] == 2
    assert summary["success_rate"] == 0.5
    assert summary["not_played"] == 6
    assert summary["statuses"] == {"not_played": 6, "goal": 1, "error": 1}
    assert summary["failed_episodes"] == 1


class GivesUpAfter:
    """Answers with the oracle, and after `limit` replies says its endpoint is down."""

    name = "scripted"

    def __init__(self, limit: int):
        self.limit = limit
        self.replies = 0

    async def prepare(self) -> None:
        return None

    async def reply(self, env: Any, messages: Any, rng: random.Random) -> str:
        self.replies += 1
        return env.oracle_reply()

    def stop_reason(self) -> str | None:
        return "nothing answers" if self.replies >= self.limit else None

    async def close(self) -> None:
        return None


def test_a_policy_that_gives_up_stops_new_episodes_and_the_rest_are_recorded(
    tmp_path: Path,
) -> None:
    specs = (EpisodeSpec(i, "frozen_lake", {"name": "frozen_lake", "seed": i}) for i in range(50))
    out = tmp_path / "t.jsonl"
    policy = GivesUpAfter(limit=5)
    result = asyncio.run(run_episodes(specs, 50, policy, 10, 1, out))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["index"] for line in lines] == list(range(50))
    played = [line for line in lines if line["status"] != "not_played"]
    assert 1 <= len(played) <= 5 and all(line["status"] == "goal" for line in played)
    assert result.stopped == "nothing answers" and result.signal is None
    assert summarize(result.records)["not_played"] == 50 - len(played)


def test_error_details_are_never_empty() -> None:
    assert _detail(asyncio.TimeoutError()) == "TimeoutError"
    refused = httpx.ConnectError("All connection attempts failed")
    refused.__cause__ = ConnectionRefusedError(111, "Connect call failed")
    assert _detail(refused) == "Connection refused"
    wrapped = RuntimeError()
    wrapped.__context__ = ValueError("the reason")
    assert _detail(wrapped) == "the reason"
