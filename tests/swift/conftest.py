"""Drives ms-swift's own schedulers with a scripted engine: no model, no GPU.

`ScriptedEngine` stands in for vLLM (an in-process fake, named as such): it answers each turn
with a reply chosen by a policy, and a character-level tokenizer gives the token ids that
ms-swift's multi-turn loop expects. Everything else is ms-swift 4.6's real code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from scripted_tools import CharTokenizer
from swift.infer_engine.protocol import (
    ChatCompletionResponse,
    ChatCompletionResponseChoice,
    ChatMessage,
    RequestConfig,
    RolloutInferRequest,
    RolloutOutput,
    UsageInfo,
)

from swift_gym_frozen_lake import generate_random_map, solve

Policy = Callable[[RolloutInferRequest, int], str]


class ScriptedEngine:
    """Replies `policy(request, turn)`; turn counts from 0 per trajectory uuid."""

    def __init__(self, policy: Policy):
        self.policy = policy
        self.tokenizer = CharTokenizer()
        self.turns: dict[str, int] = {}

    async def infer_async(self, request: RolloutInferRequest, request_config: Any, **kwargs: Any):
        turn = self.turns.get(request.uuid, 0)
        self.turns[request.uuid] = turn + 1
        text = self.policy(request, turn)
        ids = self.tokenizer.encode(text)
        choice = ChatCompletionResponseChoice(
            index=0,
            message=ChatMessage(role="assistant", content=text),
            finish_reason="stop",
            token_ids=ids,
        )
        usage = UsageInfo(prompt_tokens=0, completion_tokens=len(ids), total_tokens=len(ids))
        return ChatCompletionResponse(model="scripted", choices=[choice], usage=usage)


def oracle(request: RolloutInferRequest, turn: int) -> str:
    """The shortest path of the row's seeded 4x4 map."""
    seed = request.data_dict["env_config"]["seed"]
    plan = solve(generate_random_map(4, 0.8, seed))
    return f"<action>{plan[min(turn, len(plan) - 1)]}</action>"


def rows(*env_configs: dict[str, Any]) -> list[RolloutInferRequest]:
    return [
        RolloutInferRequest(
            messages=[{"role": "user", "content": "<placeholder>"}],
            uuid=f"trajectory-{index}",
            data_dict={"env_config": dict(config)},
        )
        for index, config in enumerate(env_configs)
    ]


def make_scheduler(scheduler_name: str, policy: Policy, max_turns: int = 10):
    """ms-swift's registered scheduler, as `swift rollout` builds it, on a scripted engine."""
    from swift.rollout.multi_turn import multi_turns

    engine = ScriptedEngine(policy)
    return multi_turns[scheduler_name](
        infer_engine=engine, max_turns=max_turns, gym_env="frozen_lake", tokenizer=engine.tokenizer
    )


def run_server_mode(
    scheduler_name: str, policy: Policy, requests, max_turns: int = 10, *, scheduler=None
):
    """`scheduler.run(...)` per request, as `swift rollout` does: the server-mode path."""
    scheduler = scheduler or make_scheduler(scheduler_name, policy, max_turns)
    config = RequestConfig(max_tokens=32, return_details=True)

    async def run_all():
        return await asyncio.gather(*(scheduler.run(request, config) for request in requests))

    return asyncio.run(run_all())


def run_colocate_mode(
    scheduler_name: str, policy: Policy, requests, max_turns: int = 10, *, scheduler=None
):
    """`on_trajectory_start` then `run_multi_turn`, as the trainer's colocate path does."""
    from swift.rollout.agent_loop import invoke_async_hook, run_multi_turn

    scheduler = scheduler or make_scheduler(scheduler_name, policy, max_turns)
    engine = scheduler.infer_engine
    config = RequestConfig(max_tokens=32, return_details=True)

    def rollout(pending, request_config):
        async def infer_all():
            return await asyncio.gather(*(engine.infer_async(r, request_config) for r in pending))

        return [RolloutOutput(response=response) for response in asyncio.run(infer_all())]

    invoke_async_hook(scheduler.on_trajectory_start(requests))
    first_turn = rollout(requests, config)
    return run_multi_turn(requests, first_turn, scheduler, rollout, config, max_turns=max_turns)


@pytest.fixture(params=["gym_scheduler", "swift_gym"])
def scheduler_name(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(name="oracle")
def oracle_policy() -> Policy:
    return oracle


@pytest.fixture(name="rows")
def rows_factory():
    return rows


@pytest.fixture(name="run_rollout", params=["server", "colocate"])
def rollout_runner(request: pytest.FixtureRequest):
    """Runs requests through a scheduler by one of ms-swift's two multi-turn paths."""
    return run_server_mode if request.param == "server" else run_colocate_mode


@pytest.fixture(name="make_scheduler")
def scheduler_factory():
    return make_scheduler


@pytest.fixture(scope="module")
def lake():
    """A `swift-gym serve frozen_lake` process on 127.0.0.1, for the module's tests."""
    import serve_process

    server = serve_process.start("frozen_lake")
    yield server
    server.stop()
