"""Config models: the fields every TextArena env shares, and each game's own arguments.

Each id's config (games.py) has the values TextArena registers for that id as its defaults (the
variant ids, `Sudoku-v0-hard`, are the same game with other arguments); a field the id does not
register defaults to None, the game's own default. The non-None values go to `ta.make`.
Bounds keep every game small enough to build in well under a second, and
the checks on combinations (a Minesweeper board with room for its mines) run on the values the
game will get, the id's merged with the config's, so a bad mix is refused when the env is built
instead of making the game fail or loop.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from swift_gym import EnvConfig

from .observations import ObservationMode
from .tool_moves import TOOL_MOVES

NONE_MEANS = " (None: the game's default)."
TURNS = Field(None, ge=1, le=1000, description="TextArena's turn limit" + NONE_MEANS)


def opt(low: float, high: float, what: str) -> Any:
    return Field(None, ge=low, le=high, description=what + NONE_MEANS)


class TextArenaConfig(EnvConfig):
    """Fields of every env of this package."""

    observation: ObservationMode = Field(
        "current",
        description=(
            "What each observation shows. current: the last move's game messages and the "
            "current board; history: every message of the episode so far (TextArena's default "
            "wrapper)."
        ),
    )
    max_reply_chars: int = Field(
        8192,
        ge=1,
        le=65536,
        description=(
            "Longer replies are refused (status invalid_action, the game is not called): the "
            "games run regular expressions over the whole reply."
        ),
    )
    call_timeout: float = Field(
        30.0,
        gt=0.0,
        le=300.0,
        description="Seconds a game's reset or step may take before the episode is an error.",
    )

    action_format: Literal["tag", "tool"] = Field(
        "tag",
        description=(
            "How the model gives its move. tag: in square brackets in its text, as the rules "
            "say; tool: one call of the game's function, played as that move (only the games "
            "whose move is one value: " + ", ".join(TOOL_MOVES) + ")."
        ),
    )

    offers_tool: ClassVar[bool] = False
    """Whether the game's move fits one tool parameter (tool_moves.py); set per game below."""
    id_defaults: ClassVar[dict[str, Any]] = {}
    """The arguments TextArena registers for this config's id; set on each id's subclass."""

    def game_kwargs(self) -> dict[str, Any]:
        """The arguments of `ta.make`: every game field that is not None."""
        own = set(type(self).model_fields) - set(TextArenaConfig.model_fields)
        return {key: getattr(self, key) for key in sorted(own) if getattr(self, key) is not None}

    def resolved(self) -> dict[str, Any]:
        """The id's arguments with the config's on top: what the game will be built with."""
        return {**self.id_defaults, **self.game_kwargs()}

    def check(self, values: dict[str, Any]) -> None:
        """Refuse a combination of the resolved values (raise ValueError); games override it."""

    @field_validator("action_format")
    @classmethod
    def _game_has_a_tool(cls, action_format: str) -> str:
        if action_format == "tool" and not cls.offers_tool:
            raise ValueError(
                "action_format 'tool' is offered only by the games whose move is one value ("
                + ", ".join(TOOL_MOVES)
                + "); this game reads its moves from text: use 'tag'"
            )
        return action_format

    @model_validator(mode="after")
    def _check_combination(self) -> TextArenaConfig:
        self.check(self.resolved())
        return self


class Game2048Config(TextArenaConfig):
    target_tile: int | None = opt(8, 2**17, "The tile that wins (a power of two)")
    board_size: int | None = opt(2, 10, "Rows and columns of the board")

    def check(self, values: dict[str, Any]) -> None:
        tile = values.get("target_tile", 2048)
        if tile & (tile - 1):
            raise ValueError(f"target_tile must be a power of two, got {tile}")


class BanditConfig(TextArenaConfig):
    buttons: list[Annotated[str, Field(max_length=20, pattern=r"^[a-z]+$")]] | None = Field(
        None, min_length=2, max_length=20, description="Button names, a-z" + NONE_MEANS
    )
    p_gap: float | None = Field(
        None, gt=0.0, le=0.5, description="Gap between the best mean and the others."
    )
    num_turns: int | None = opt(1, 1000, "Presses before the final choice")

    def check(self, values: dict[str, Any]) -> None:
        buttons = values.get("buttons") or []
        if any(not re.fullmatch(r"[a-z]{1,20}", b) for b in buttons):
            raise ValueError("buttons must be 1 to 20 lowercase letters each")
        if len(set(buttons)) != len(buttons):
            raise ValueError("buttons must be distinct")


class BlackjackConfig(TextArenaConfig):
    num_hands: int | None = opt(1, 100, "Hands played; the reward is the share won")


class CountdownConfig(TextArenaConfig):
    numbers: list[Annotated[int, Field(ge=1, le=1000)]] | None = Field(
        None, min_length=2, max_length=8, description="Numbers to combine, 1..1000 each."
    )
    target: int | None = opt(1, 10**6, "The number to reach")
    max_turns: int | None = TURNS

    def check(self, values: dict[str, Any]) -> None:
        if any(not 1 <= n <= 1000 for n in values.get("numbers") or []):
            raise ValueError("numbers must each be between 1 and 1000")


class CrosswordsConfig(TextArenaConfig):
    hardcore: bool | None = Field(None, description="Harder words" + NONE_MEANS)
    max_turns: int | None = TURNS
    num_words: int | None = opt(1, 5, "Words in the puzzle")


class CryptarithmConfig(TextArenaConfig):
    equation: str | None = Field(
        None,
        max_length=60,
        pattern=r"^[A-Z]{1,10}( \+ [A-Z]{1,10}){1,4} = [A-Z]{1,11}$",
        description="An addition of words, e.g. 'SEND + MORE = MONEY' (at most 10 letters).",
    )
    max_turns: int | None = TURNS

    def check(self, values: dict[str, Any]) -> None:
        letters = set(re.sub(r"[^A-Z]", "", values.get("equation", "")))
        if len(letters) > 10:
            raise ValueError(f"equation uses {len(letters)} letters; at most 10 digits exist")


class FifteenPuzzleConfig(TextArenaConfig):
    max_turns: int | None = TURNS


class FrozenLakeConfig(TextArenaConfig):
    size: int | None = opt(3, 10, "Rows and columns")
    num_holes: int | None = opt(0, 30, "Holes on the lake")
    randomize_start_goal: bool | None = Field(None, description="Random start and goal.")

    def check(self, values: dict[str, Any]) -> None:
        size, holes = values.get("size", 4), values.get("num_holes", 3)
        if holes > size * size // 3:
            raise ValueError(f"num_holes {holes} is more than a third of a {size}x{size} lake")


class GuessTheNumberConfig(TextArenaConfig):
    min_number: int | None = opt(0, 10**6, "Smallest possible number")
    max_number: int | None = opt(1, 10**6, "Largest possible number")
    max_turns: int | None = TURNS

    def check(self, values: dict[str, Any]) -> None:
        if values.get("min_number", 1) >= values.get("max_number", 20):
            raise ValueError("min_number must be smaller than max_number")


class LightsOutConfig(TextArenaConfig):
    size: int | None = opt(2, 10, "Rows and columns")
    max_turns: int | None = TURNS


class LogicPuzzleConfig(TextArenaConfig):
    difficulty: Literal["easy", "hard"] | None = Field(None, description="Puzzle set.")
    max_turns: int | None = TURNS


class MastermindConfig(TextArenaConfig):
    code_length: int | None = opt(1, 10, "Digits in the code")
    num_numbers: int | None = opt(2, 20, "Digits are 1..num_numbers")
    max_turns: int | None = TURNS
    duplicate_numbers: bool | None = Field(None, description="Whether digits may repeat.")

    def check(self, values: dict[str, Any]) -> None:
        if not values.get("duplicate_numbers") and values.get("code_length", 4) > values.get(
            "num_numbers", 6
        ):
            raise ValueError("code_length exceeds num_numbers without duplicate_numbers")


class MinesweeperConfig(TextArenaConfig):
    rows: int | None = opt(3, 30, "Rows")
    cols: int | None = opt(3, 30, "Columns")
    num_mines: int | None = opt(1, 300, "Mines")
    max_turns: int | None = TURNS

    def check(self, values: dict[str, Any]) -> None:
        cells = values.get("rows", 8) * values.get("cols", 8)
        if values.get("num_mines", 10) > cells // 2:
            raise ValueError(f"num_mines must be at most half of the {cells} cells")


class PegJumpConfig(TextArenaConfig):
    initial_empty: int | None = opt(1, 15, "The hole the game starts with (1..15)")


class RushHourConfig(TextArenaConfig):
    difficulty: Literal["easy", "medium", "hard"] | None = Field(
        None, description="Scramble moves: 12, 20 or 35 (None: medium)."
    )


class SecretaryConfig(TextArenaConfig):
    N: int | None = opt(2, 1000, "Values drawn one by one")


class SetConfig(TextArenaConfig):
    """Set has no options (its constructor's `seed` is unused; reset's seed deals the cards)."""


class SlitherlinkConfig(TextArenaConfig):
    rows: int | None = opt(2, 8, "Rows")
    cols: int | None = opt(2, 8, "Columns")
    max_turns: int | None = TURNS


class SudokuConfig(TextArenaConfig):
    clues: int | None = opt(20, 80, "Given cells")
    max_turns: int | None = TURNS


class ThreeCardMonteConfig(TextArenaConfig):
    num_cups: int | None = opt(3, 10, "Cups")
    steps: int | None = opt(0, 100, "Shuffles")


class TowerOfHanoiConfig(TextArenaConfig):
    num_disks: int | None = opt(1, 10, "Disks")
    max_turns: int | None = TURNS


GAME_CONFIGS: dict[str, type[TextArenaConfig]] = {
    "Game2048": Game2048Config,
    "Bandit": BanditConfig,
    "Blackjack": BlackjackConfig,
    "Countdown": CountdownConfig,
    "Crosswords": CrosswordsConfig,
    "Cryptarithm": CryptarithmConfig,
    "FifteenPuzzle": FifteenPuzzleConfig,
    "FrozenLake": FrozenLakeConfig,
    "GuessTheNumber": GuessTheNumberConfig,
    "LightsOut": LightsOutConfig,
    "LogicPuzzle": LogicPuzzleConfig,
    "Mastermind": MastermindConfig,
    "Minesweeper": MinesweeperConfig,
    "PegJump": PegJumpConfig,
    "RushHour": RushHourConfig,
    "Secretary": SecretaryConfig,
    "Set": SetConfig,
    "Slitherlink": SlitherlinkConfig,
    "Sudoku": SudokuConfig,
    "ThreeCardMonte": ThreeCardMonteConfig,
    "TowerOfHanoi": TowerOfHanoiConfig,
}

for _game, _config in GAME_CONFIGS.items():
    _config.offers_tool = _game in TOOL_MOVES
