"""FrozenLake's reward functions for ms-swift's `--reward_funcs`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import content_text, parse_action


def format_reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """Per row, the share of assistant turns holding exactly one valid `<action>` tag.

    Registered as `frozen_lake_format`. ms-swift passes each row's whole conversation in
    `messages`; without it, only the final completion is scored. In a multi-turn rollout
    ms-swift has replaced every assistant turn but the last by its token ids (a list of ints,
    or a dict of them), which no text check can read. Such a turn is judged by its step's info
    from the `swift_gym` scheduler's `rollout_infos` (valid unless its status is
    `invalid_action`: the env's own reading of the reply), or, without one, left out: counted
    as invalid, it would make the reward favour short episodes.
    """
    conversations = kwargs.get("messages") or [None] * len(completions)
    infos = kwargs.get("rollout_infos") or [None] * len(completions)
    scores = []
    for completion, messages, info in zip(completions, conversations, infos, strict=False):
        if not isinstance(messages, list):
            scores.append(_share([_valid(content_text(completion))]))
            continue
        steps = info.get("step_infos") if isinstance(info, dict) else None
        steps = steps if isinstance(steps, list) else []
        judged = []
        turns = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
        for index, message in enumerate(turns):
            content = message.get("content")
            if not _token_backed(content):
                judged.append(_valid(content_text(content)))
            elif index < len(steps) and isinstance(steps[index], dict):
                judged.append(steps[index].get("status") != "invalid_action")
        scores.append(_share(judged))
    return scores


def _valid(reply: str) -> bool:
    return parse_action(reply, "single_tag") is not None


def _share(judged: list[bool]) -> float:
    return sum(judged) / len(judged) if judged else 0.0


def _token_backed(content: Any) -> bool:
    """Whether `content` is ms-swift's token-id form of an assistant turn."""
    if isinstance(content, dict):
        content = content.get("token_ids", content.get("input_ids"))
        return isinstance(content, list) and all(isinstance(i, int) for i in content)
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(i, int) and not isinstance(i, bool) for i in content)
    )
