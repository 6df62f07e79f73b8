"""A tool turn's sampled ids, less the end token that the tool response writes again.

ms-swift 4.6 keeps each reply as the token ids it sampled, its end token included. Before a user
turn its template drops that token's overlap with the chat separator
(`Template._remove_response_separator_overlap`); before a tool response it does not, and the
agent template's tool response (hermes: the chat separator, then a user turn) opens with the same
end token. Left so, every later prompt of a tool episode reads `<call><|im_end|><|im_end|>`
where a chat, and so a served model, reads `<call><|im_end|>`, and training labels the doubled
token: a context the policy never samples in, trained on every tool turn. Handing ms-swift the
reply's ids less that overlap makes a tool turn encode exactly as the chat does, with the end
token still labelled (the template writes it as the end of the reply).
"""

from __future__ import annotations

from typing import Any


def overlap(ids: list[int], following: list[int]) -> int:
    """How many of the last `ids` the `following` ids open with (the longest such run), never
    all of `ids`: a turn keeps at least one sampled token."""
    for size in range(min(len(ids) - 1, len(following)), 0, -1):
        if ids[-size:] == following[:size]:
            return size
    return 0


def response_ids(template: Any, reply: str, tool_messages: list[dict[str, Any]]) -> list[int]:
    """The ids the template writes right after a reply that `tool_messages` answer: the text
    its agent template opens the tool response with. Empty when it cannot say."""
    agent_template = getattr(template, "agent_template", None)
    if agent_template is None:
        return []
    try:
        _, prompt = agent_template._format_tool_responses(reply, tool_messages)
        opening = []
        for context in prompt:
            if not isinstance(context, str):
                break
            opening.append(context)
        return list(template._tokenize("".join(opening)))
    except Exception:  # an agent template of another shape: leave the turn as sampled
        return []


def trimmed_turn(
    ids: list[int], mask: list[int], logprobs: list[float], following: list[int]
) -> dict[str, Any] | None:
    """The step result's fields for a turn whose ids end with what `following` opens with:
    ids, loss mask and (when they are one per trained id) rollout logprobs, cut there.
    None when nothing overlaps, or the overlap is not all trained ids."""
    cut = overlap(ids, following)
    if not cut or not all(mask[-cut:]):
        return None
    out: dict[str, Any] = {"response_token_ids": ids[:-cut], "response_loss_mask": mask[:-cut]}
    if logprobs and len(logprobs) == sum(mask):
        out["rollout_logprobs"] = logprobs[:-cut]
    return out
