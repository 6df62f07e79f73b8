"""FrozenLake's reward functions for ms-swift's `--reward_funcs`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import content_text, parse_action


def format_reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """Per row, the share of assistant turns holding exactly one valid `<action>` tag.

    Registered as `frozen_lake_format`. ms-swift passes each row's whole conversation in
    `messages`; without it, only the final completion is scored.
    """
    conversations = kwargs.get("messages") or [None] * len(completions)
    scores = []
    for completion, messages in zip(completions, conversations, strict=False):
        if isinstance(messages, list):
            replies = [
                content_text(message.get("content"))
                for message in messages
                if isinstance(message, dict) and message.get("role") == "assistant"
            ]
        else:
            replies = [content_text(completion)]
        valid = sum(parse_action(reply, "single_tag") is not None for reply in replies)
        scores.append(valid / len(replies) if replies else 0.0)
    return scores
