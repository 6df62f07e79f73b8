"""From TextArena's messages to the text a model reads each turn.

The unwrapped (`-raw`) games hand out, per `get_observation()`, the messages added since the
last call: (sender, text, ObservationType). TextArena's default wrapper (LLMObservationWrapper)
then re-sends the whole accumulated history every turn, which grows the prompt quadratically
over a multi-turn episode. Here `current` (the default) shows what the last move brought (the
game's messages and its newest board), with the latest board repeated when a move produced
none, so every observation holds the current state; `history` shows every message so far, as
TextArena's wrapper does. The prompt message (the rules) goes into the system prompt instead.

Some games pass `add_observation` its arguments in the wrong order (Countdown), so a message is
kept only when its text is a string and its type a known ObservationType; the rest is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ObservationMode = Literal["current", "history"]

MAX_MESSAGE_CHARS = 20_000
"""A bound on one message of the game (they are a few hundred characters)."""


@dataclass
class Messages:
    """The messages of one episode, sorted by kind, as they arrive."""

    prompt: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    board: str | None = None

    def take(self, raw: Any) -> tuple[list[str], str | None]:
        """Sort a batch from `get_observation()`: (new game messages, new board or None)."""
        from textarena.core import ObservationType

        new: list[str] = []
        board = None
        for item in raw if isinstance(raw, (list, tuple)) else ():
            if not (isinstance(item, tuple) and len(item) == 3):
                continue
            _, text, kind = item
            if not isinstance(text, str) or not isinstance(kind, ObservationType):
                continue
            text = text[:MAX_MESSAGE_CHARS].strip()
            if kind is ObservationType.PROMPT:
                self.prompt.append(text)
            elif kind is ObservationType.PLAYER_ACTION:
                continue  # the model's own reply, echoed
            elif kind is ObservationType.GAME_BOARD:
                board = self.board = text
                self.history.append(text)
            elif text:
                new.append(text)
                self.history.append(text)
        return new, board


def render(messages: Messages, new: list[str], board: str | None, mode: ObservationMode) -> str:
    """The observation of a turn in `mode`."""
    if mode == "history":
        return "\n\n".join(messages.history) or "(no messages yet)"
    parts = list(new)
    shown = board if board is not None else messages.board
    if shown is not None:
        parts.append(shown)
    return "\n\n".join(parts) or "(no new messages)"
