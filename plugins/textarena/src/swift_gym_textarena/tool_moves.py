"""The games whose move is one value, offered as a tool with `action_format: tool`.

A guessed number, a direction, hit or stand: each is one parameter of one function, and the
call is played as the bracketed move the game reads (`guess(number=7)` is `[7]`). Games whose
move holds several parts (Sudoku's row, column and digit, TowerOfHanoi's two pegs) stay text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from swift_gym.tools import ChoiceTool

DIRECTIONS = ("up", "down", "left", "right")


@dataclass(frozen=True)
class ToolMove:
    """One game's tool: `name(parameter)`; `move` writes a value as the game's bracketed move."""

    name: str
    parameter: str
    description: str
    move: Callable[[Any], str]
    choices: tuple[str, ...] | None = None
    bounds: Callable[[Mapping[str, Any]], tuple[int, int]] | None = None

    def tool(self, values: Mapping[str, Any], label: str) -> ChoiceTool:
        """The checked tool for a game built with `values` (the config's resolved arguments)."""
        bounds = self.bounds(values) if self.bounds is not None else None
        return ChoiceTool(
            self.name,
            self.parameter,
            self.description,
            choices=self.choices,
            bounds=bounds,
            label=label,
        )

    def value_of(self, move: str, tool: ChoiceTool) -> Any:
        """The tool's value for a bracketed move (an oracle's reply); raises ValueError."""
        if tool.choices is None:
            return int(move.strip().strip("[]"))
        for value in tool.choices:
            if self.move(value) == move:
                return value
        raise ValueError(f"{move!r} is not a move of {self.name}")


def _bracketed(value: Any) -> str:
    return f"[{value}]"


def _capitalized(word: str) -> str:
    return f"[{word.capitalize()}]"


def _guess_bounds(values: Mapping[str, Any]) -> tuple[int, int]:
    return values.get("min_number", 1), values.get("max_number", 20)


def _cup_bounds(values: Mapping[str, Any]) -> tuple[int, int]:
    return 0, values.get("num_cups", 3) - 1


TOOL_MOVES: dict[str, ToolMove] = {
    "GuessTheNumber": ToolMove(
        "guess",
        "number",
        "Guess the secret number.",
        _bracketed,
        bounds=_guess_bounds,
    ),
    "FrozenLake": ToolMove(
        "move", "direction", "Move one cell on the lake.", _bracketed, choices=DIRECTIONS
    ),
    "FifteenPuzzle": ToolMove(
        "move",
        "direction",
        "Slide a tile into the empty space from this side.",
        _bracketed,
        choices=DIRECTIONS,
    ),
    "Game2048": ToolMove(
        "move",
        "direction",
        "Slide every tile this way.",
        _capitalized,
        choices=DIRECTIONS,
    ),
    "Blackjack": ToolMove(
        "play",
        "action",
        "Hit (take a card) or stand (end the hand).",
        _capitalized,
        choices=("hit", "stand"),
    ),
    "Secretary": ToolMove(
        "decide",
        "decision",
        "Accept the value shown, or continue to the next one.",
        _bracketed,
        choices=("continue", "accept"),
    ),
    "ThreeCardMonte": ToolMove(
        "guess",
        "cup",
        "Guess the cup that hides the ball.",
        _bracketed,
        bounds=_cup_bounds,
    ),
}
"""The games with `action_format: tool`, by game name (games.py)."""
