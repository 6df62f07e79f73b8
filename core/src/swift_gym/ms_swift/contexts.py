"""A chat an env replaced (`Env.rewritten_context`), as the messages ms-swift plays next.

ms-swift keeps each earlier assistant turn of a request as the token ids the policy sampled,
and when it trains, puts the sampled ids of turn N-k into the k-th assistant message from the
end of the final chat. So in a replaced chat each assistant message that is a policy reply
word for word is that reply's own message (its ids: the model sees exactly what it sampled);
any other message is text. A user message right after tool messages joins the last of them,
as the scheduler's tool turns do (ms-swift's templates pair each query with an answer).

What ms-swift then trains on is the final chat of the episode: what the model saw on its last
turn, and its last reply. Replies the program dropped from its chat (summarised away) are not
trained on; their rewards still count. When the chat's assistant messages are not the latest
replies in order (the program kept an older reply, wrote or edited an assistant message),
ms-swift's positional rule trains some of them on other turns' ids: `Replacement.aligned` is
then False, and the scheduler warns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..episode.layout import signature


@dataclass(frozen=True)
class Replacement:
    """The next turn's messages; whether they end (in assistant turns) with the newest reply,
    and whether their assistant messages are the latest replies in order."""

    messages: list[dict[str, Any]]
    keeps_newest: bool
    aligned: bool


def replacement(
    context: Sequence[dict[str, Any]], replies: Sequence[tuple[tuple[Any, ...], dict[str, Any]]]
) -> Replacement:
    """`context` for ms-swift; `replies` are (signature, ms-swift's message) of each turn's
    reply so far, oldest first (the newest is the current turn's)."""
    by_signature = {key: (turn, message) for turn, (key, message) in enumerate(replies)}
    messages: list[dict[str, Any]] = []
    turns: list[int | None] = []
    for original in context:
        role = original.get("role")
        if role == "assistant":
            found = by_signature.get(signature(original))
            if found is not None:
                turns.append(found[0])
                messages.append(found[1])
                continue
            turns.append(None)
        message = {key: value for key, value in original.items() if value is not None}
        if message.get("content") is None:
            message["content"] = ""
        if role == "user" and messages and messages[-1].get("role") == "tool":
            last = messages[-1] = dict(messages[-1])
            text = message["content"] if isinstance(message["content"], str) else ""
            last["content"] = f"{last['content']}\n\n{text}" if last["content"] else text
            continue
        messages.append(message)
    newest = len(replies) - 1
    keeps_newest = bool(turns) and turns[-1] == newest
    # the next reply is appended after these: they must be the replies just before it
    aligned = turns == list(range(newest - len(turns) + 1, newest + 1))
    return Replacement(messages, keeps_newest, aligned)
