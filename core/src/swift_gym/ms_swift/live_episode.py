"""One episode as the `swift_gym` scheduler plays it: the shared `Episode`, and what ms-swift adds.

The episode room (`swift_gym.episode`) keeps the chat's rules, the checks, the turns and the
rewards. ms-swift needs more per episode: the messages to append at its `step` hook, the
token ids it kept for each reply (to count the next prompt), the replies an env's replaced chat
is matched against, the trajectory record being built. All of it lives in one `LiveEpisode`
per uuid, dropped as one object when the episode ends.
"""

from __future__ import annotations

import math
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from ..episode import Episode
from ..tools.toolset import ToolSet

ENCODED_TURN = Any
"""A turn as `trajectory_log.encoded_turn` returns it."""


def jsonable(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-serialisable data; what is not becomes its (short) repr."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:  # most of an info dict
        return value
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if depth < 20 and isinstance(value, dict):
        plain = {}
        for key, item in value.items():
            kind = type(item)
            plain[key if type(key) is str else text_of(key)] = (
                item
                if kind is str or kind is int or kind is bool or item is None
                else jsonable(item, depth + 1)
            )
        return plain
    if depth < 20 and isinstance(value, (list, tuple)):
        return [jsonable(item, depth + 1) for item in value]
    text = text_of(value, repr)
    return text if len(text) <= 200 else text[:197] + "..."


def text_of(value: Any, convert: Any = str) -> str:
    """`convert(value)`, or a placeholder when the object's own str/repr raises."""
    try:
        return str(convert(value))
    except Exception:
        return f"<unrepresentable {type(value).__name__}>"


def plain_copy(value: Any) -> Any:
    """A deep copy of chat messages: dicts, lists and scalars rebuilt directly (several times
    faster than `deepcopy`, which the scheduler paid on every turn), anything else deep-copied."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        copied = value.copy()  # a message's values are mostly strings: kept as they are
        for key, item in copied.items():
            kind = type(item)
            if kind is not str and kind is not int and item is not None:
                copied[key] = plain_copy(item)
        return copied
    if kind is list:
        return [plain_copy(item) for item in value]
    return deepcopy(value)


@dataclass
class LiveEpisode:
    """One uuid's episode: its env, its `Episode`, and ms-swift's side of it."""

    name: str
    """The env's name as the row gave it (a repr when it was not text)."""
    env: Any = None
    opened: bool = False
    """Its reset succeeded."""
    reset_info: Any = None
    """The reset's info as JSON, once it succeeded (read each turn)."""
    episode: Episode = field(default_factory=Episode)
    env_config: Any = None
    """The row's env_config, as JSON (kept only when trajectories are written)."""
    error: str | None = None
    """Why the env ended the episode (reset or step failed); its reward is then 0."""
    context_full: dict[str, Any] | None = None
    """Set when the next prompt would not have fit the engine (`context_room`)."""
    step_infos: list[Any] = field(default_factory=list)
    """Each step's info, as JSON: the same growing list in each turn's rollout_infos."""
    tools: list[Any] | None = None
    """The schemas offered, as the rollout_infos and the record keep them."""
    tool_calls: list[list[dict[str, str]]] = field(default_factory=list)
    tool_results: list[list[dict[str, str]]] = field(default_factory=list)
    encoded: list[ENCODED_TURN] = field(default_factory=list)
    """The turns for the trajectory file, encoded as each ended."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    """Messages ms-swift's `step` hook appends for the next turn."""
    rewrites: bool = False
    """The env may replace the chat (`Env.rewritten_context`)."""
    pending_context: list[dict[str, Any]] | None = None
    """The chat the env replaced, played at the next turn instead of `pending`."""
    offered: ToolSet | None = None
    """The tools offered with the replaced chat, handed to ms-swift with it."""
    replies: list[tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)
    """(signature, ms-swift's message) of each reply, to find it in a replaced chat."""
    reply_ids: list[list[int]] = field(default_factory=list)
    """The ids ms-swift kept for each reply, to count the next prompt."""
    keep_text: bool = False
    """The replaced chat dropped the newest reply: ms-swift must not freeze it as ids."""

    def total_reward(self) -> float:
        """What training gets: the step rewards' sum, 0 once the env failed."""
        return 0.0 if self.error else self.episode.total_reward

    def rollout_infos(self, done: bool) -> dict[str, Any]:
        """What ms-swift keeps of the episode so far (completions.jsonl, reward functions)."""
        steps = self.step_infos
        metrics = steps[-1].get("metrics") if steps and isinstance(steps[-1], dict) else None
        tools = {}
        if self.tools:  # the same growing lists each turn, as step_infos
            tools = {
                "tools": self.tools,
                "tool_calls": self.tool_calls,
                "tool_results": self.tool_results,
            }
        return {
            "total_reward": self.total_reward(),
            "step_rewards": list(self.episode.rewards),
            "gym_done": done,
            "env_name": self.name,
            "reset_info": self.reset_info,
            "step_infos": steps,
            "env_metrics": metrics if isinstance(metrics, dict) else {},
            "env_error": self.error,
            "context_full": self.context_full,
            **tools,
        }

    def trajectory(self) -> dict[str, Any]:
        """The episode as `TrajectoryLog.episode_finished` takes it."""
        episode = self.episode
        return {
            "env": self.name,
            "env_config": self.env_config,
            "system_prompt": episode.system_prompt if self.opened else None,
            "observation": episode.observation if self.opened else None,
            "reset_info": self.reset_info,
            "error": self.error,
            "context_full": self.context_full,
            "tools": self.tools,
            "turns": self.encoded,
            "step_infos": self.step_infos,
        }
