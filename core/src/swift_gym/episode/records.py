"""An episode's record and its turns' records: one schema for evaluation and training files.

Each line of a trajectory file (`swift-gym eval -o`, `SWIFT_GYM_TRAJECTORIES`) is one episode:
`index`, `env`, `seed`, `env_config`, `policy`, `max_turns`, `system_prompt`, `observation`
(the first), `reset_info`, `turns`, `num_turns`, `total_reward`, `success`, `status`, `error`
(see `evaluation.records` for the whole schema and the file). A turn keeps the reply's text, the
action the env read, the observation, reward, done and info; in an env that offers tools (or a
reply that made calls) also `tool_calls` and `tool_results`, in call order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .status import parsed_action, valid_action


def new_record(
    index: int,
    env: str,
    env_config: dict[str, Any],
    policy: str,
    rollout: dict[str, Any] | None = None,
    status: str | None = None,
) -> dict[str, Any]:
    """The record of episode `index` before it is played; `rollout`: which rollout of which
    seed it is, after its seed; `status`: `NOT_PLAYED` for an episode a run stopped before."""
    return {
        "index": index,
        "env": env,
        "seed": env_config.get("seed"),
        **(rollout or {}),
        "env_config": env_config,
        "policy": policy,
        "max_turns": None,
        "system_prompt": None,
        "observation": None,
        "reset_info": None,
        "turns": [],
        "num_turns": 0,
        "total_reward": 0.0,
        "success": False,
        "status": status,
        "error": None,
    }


def turn_record(
    number: int,
    reply: Any,
    observation: str,
    reward: float,
    done: bool,
    info: Mapping[str, Any],
    tool_calls: list[dict[str, str]] | None = None,
    tool_results: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """One turn: the reply, what the env read from it, and after. `tool_calls` given (a tool
    turn): the calls and `tool_results` (maybe empty) are kept; a text turn has neither key."""
    if tool_calls is None:  # a text turn: one literal, in the keys' order below
        return {
            "turn": number,
            "reply": reply,
            "action": parsed_action(info),
            "valid_action": valid_action(info),
            "observation": observation,
            "reward": reward,
            "done": done,
            "info": info,
        }
    record: dict[str, Any] = {"turn": number, "reply": reply}
    if tool_calls is not None:
        record["tool_calls"] = tool_calls
    record.update(
        action=parsed_action(info), valid_action=valid_action(info), observation=observation
    )
    if tool_calls is not None:
        record["tool_results"] = tool_results if tool_results is not None else []
    record.update(reward=reward, done=done, info=info)
    return record
