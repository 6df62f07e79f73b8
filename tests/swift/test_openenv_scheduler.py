"""ms-swift's own OpenEnv route against `swift-gym serve`: its `openenv_scheduler`
(`OpenEnvScheduler` + `OpenEnvWrapper`, which use openenv-core's `GenericEnvClient`) plays
FrozenLake served by a real `swift-gym serve` process on 127.0.0.1, unchanged.

ms-swift shows the model `json.dumps(observation)` and sends `parse_action(reply)`: a reply
that parses as a JSON object goes as that object, which the server plays as its JSON text.
"""

from __future__ import annotations

import json

import pytest
import serve_process

from swift_gym_frozen_lake import generate_random_map, solve

pytest.importorskip("openenv.core.generic_client")


def requests_for(rows, url: str, seeds) -> list:
    return rows(*({"base_url": url, "reset_kwargs": {"seed": seed}} for seed in seeds))


def seeded_oracle(request, turn: int) -> str:
    """The shortest path of the map the row's reset seed draws."""
    seed = request.data_dict["env_config"]["reset_kwargs"]["seed"]
    plan = solve(generate_random_map(4, 0.8, seed))
    return f"<action>{plan[min(turn, len(plan) - 1)]}</action>"


def test_ms_swift_openenv_scheduler_plays_a_served_frozen_lake(
    rows, run_rollout, lake: serve_process.Server
) -> None:
    seeds = [0, 1, 2, 3]
    outputs = run_rollout("openenv_scheduler", seeded_oracle, requests_for(rows, lake.url, seeds))
    for output in outputs:
        infos = output.rollout_infos
        assert infos["total_reward"] == 1.0 and infos["gym_done"] is True
        first = json.loads(output.messages[0]["content"])  # ms-swift shows the JSON
        assert "You are at row" in first["text"] and first["info"]["status"] == "reset"


def test_a_json_reply_from_parse_action_is_played_as_its_text(
    rows, run_rollout, lake: serve_process.Server
) -> None:
    (output,) = run_rollout(
        "openenv_scheduler", lambda r, t: '{"move": "right"}', requests_for(rows, lake.url, [0]), 2
    )
    infos = output.rollout_infos
    assert infos["step_rewards"] == [0.0, 0.0]  # two invalid actions, the episode goes on
    assert infos["gym_done"] is False
