"""From TextArena's messages to the text a model reads each turn.

The unwrapped (`-raw`) games hand out, per `get_observation()`, the messages added since the
last call: (sender, text, ObservationType). TextArena's default wrapper (LLMObservationWrapper)
then re-sends the whole accumulated history every turn, which grows the prompt quadratically
over a multi-turn episode. Here `current` (the default) shows what the last move brought (the
game's messages and its newest board), with the latest board repeated when a move produced
none, and the last game messages after a move that brought only a refusal (some games show
their state as messages), so every observation holds the current state; `history` shows every
message so far, as TextArena's wrapper does. The prompt message (the rules) goes into the system
prompt instead.

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
class Batch:
    """What one `get_observation()` brought: the game's notices about the move (invalid-move
    messages), its other messages, and its newest board."""

    admin: list[str] = field(default_factory=list)
    game: list[str] = field(default_factory=list)
    board: str | None = None


@dataclass
class Messages:
    """The messages of one episode, sorted by kind, as they arrive."""

    prompt: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    board: str | None = None
    last_game: list[str] = field(default_factory=list)
    """The game messages of the last batch that had any: games that show their state as
    messages (Blackjack's hands, Cryptarithm's mapping) have it repeated after a refused move."""

    def take(self, raw: Any) -> Batch:
        """Sort a batch from `get_observation()`."""
        from textarena.core import ObservationType

        batch = Batch()
        for item in raw if isinstance(raw, (list, tuple)) else ():
            if not (isinstance(item, tuple) and len(item) == 3):
                continue
            _, text, kind = item
            if not isinstance(text, str) or not isinstance(kind, ObservationType):
                continue
            text = text[:MAX_MESSAGE_CHARS].strip()
            if not text or kind is ObservationType.PLAYER_ACTION:
                continue  # the model's own reply, echoed
            if kind is ObservationType.PROMPT:
                self.prompt.append(text)
                continue
            self.history.append(text)
            if kind is ObservationType.GAME_BOARD:
                batch.board = self.board = text
            elif kind is ObservationType.GAME_ADMIN:
                batch.admin.append(text)
            else:
                batch.game.append(text)
        if batch.game:
            self.last_game = batch.game
        return batch


def render(messages: Messages, batch: Batch, mode: ObservationMode) -> str:
    """The observation of a turn in `mode`."""
    if mode == "history":
        return "\n\n".join(messages.history) or "(no messages yet)"
    parts = [*batch.admin, *(batch.game or messages.last_game)]
    if messages.board is not None:
        parts.append(messages.board)
    return "\n\n".join(parts) or "(no new messages)"
