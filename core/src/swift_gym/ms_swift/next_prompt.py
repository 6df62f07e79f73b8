"""Whether an episode's next prompt, as ms-swift will send it, fits the engine (`context_room`).

The scheduler asks before each turn. ms-swift sends each earlier reply as the ids it sampled,
so the prompt is counted that way: the chat with the messages the step adds, each reply as its
ids (as text when they cannot be matched), the tools ms-swift renders. A chat the env replaced
is counted as text.
"""

from __future__ import annotations

import logging
from typing import Any

from .context_room import ContextRoom, Fit, added_tokens
from .contexts import replacement
from .live_episode import LiveEpisode, plain_copy, text_of

logger = logging.getLogger("swift_gym")


class NextPrompt:
    """The engine's room, looked up at the first turn (the trainer builds its engine after
    its scheduler); None when nothing says it, and from the first counting that fails."""

    def __init__(self) -> None:
        self._room: ContextRoom | None = None
        self._looked_up = False

    def counts(self) -> bool:
        """Whether prompts are counted (so the scheduler keeps each reply's ids)."""
        return self._room is not None

    def room(self, scheduler: Any) -> ContextRoom | None:
        if not self._looked_up:
            self._looked_up = True
            engine = scheduler.infer_engine
            if engine is None and scheduler._trainer is not None:
                engine = getattr(scheduler._trainer(), "engine", None)
            self._room = ContextRoom.of(engine)
        return self._room

    def forget(self, uuid: str) -> None:
        if self._room is not None:
            self._room.forget(uuid)

    def fit(
        self, scheduler: Any, live: LiveEpisode, request: Any, response_choice: Any
    ) -> Fit | None:
        """Whether the episode's next prompt leaves its engine room to generate; None when
        the engine does not say how much room it has."""
        room = self.room(scheduler)
        if room is None:
            return None
        try:
            return _fit(room, scheduler, live, request, response_choice)
        except Exception as error:  # a check that fails must not fail the batch
            self._room = None
            logger.warning(
                "swift-gym: counting a prompt's tokens failed (%s: %s): episodes are no "
                "longer ended before a prompt that leaves no room to generate",
                type(error).__name__,
                text_of(error),
            )
            return None


def _fit(
    room: ContextRoom, scheduler: Any, live: LiveEpisode, request: Any, response_choice: Any
) -> Fit:
    uuid = request.uuid
    if live.pending_context is not None:  # the env replaced the chat: counted, as text
        swap = replacement(live.pending_context, live.replies)
        tools = live.offered or getattr(request, "tools", None)
        return room.next_prompt(uuid, None, lambda: (plain_copy(swap.messages), tools))
    last = request.messages[-1] if request.messages else {}
    newest: list[int] = []
    if last.get("role") == "assistant":  # the ids ms-swift keeps for this reply
        newest = list(scheduler.get_response_token_data(request, response_choice)[0])
    new = live.pending
    added = added_tokens(newest, last.get("content"), new)
    return room.next_prompt(uuid, added, lambda: _extended(request, live, new, newest))


def _extended(
    request: Any, live: LiveEpisode, new: list[dict[str, Any]], newest: list[int]
) -> tuple[list[dict[str, Any]], Any]:
    """The next prompt as the engine gets it: the chat with `new` messages, each reply as the
    ids ms-swift sends in its place (as text if they cannot be matched; a tool turn's newest
    reply keeps the end token `tool_turn_ids` trims: one over)."""
    messages = plain_copy(request.messages) + plain_copy(new)
    replies = [*live.reply_ids, newest]
    positions = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if len(positions) == len(replies) and all(replies):
        for position, ids in zip(positions, replies, strict=True):
            messages[position]["content"] = list(ids)
    return messages, getattr(request, "tools", None)
