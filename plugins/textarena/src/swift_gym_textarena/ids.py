"""The TextArena ids this package wraps, their registered arguments, and what is left out.

`ta.make(env_id)` only looks ids up in TextArena's registry, but an id chosen by data would
still pick games this package has not checked (ones that download corpora or call an API). So
no id ever comes from a config or a reply: each env class names its own id from `TA_IDS`, and
`make_game` refuses any other. Standard library only: listing the envs reads this module alone.
"""

from __future__ import annotations

from typing import Any

PREFIX = "textarena."

GAME_IDS: dict[str, dict[str, dict[str, Any]]] = {
    "Game2048": {
        "2048-v0-ultra-easy": {"target_tile": 32},
        "2048-v0-mega-easy": {"target_tile": 64},
        "2048-v0-super-easy": {"target_tile": 128},
        "2048-v0-very-easy": {"target_tile": 256},
        "2048-v0-easy": {"target_tile": 1024},
        "2048-v0": {"target_tile": 2048},
        "2048-v0-hard": {"target_tile": 4096},
        "2048-v0-very-hard": {"target_tile": 8192},
        "2048-v0-extreme": {"target_tile": 16384},
        "2048-v0-3x3": {"target_tile": 2048, "board_size": 3},
        "2048-v0-5x5": {"target_tile": 2048, "board_size": 5},
        "2048-v0-6x6": {"target_tile": 2048, "board_size": 6},
        "2048-v0-8x8": {"target_tile": 2048, "board_size": 8},
        "2048-v0-10x10": {"target_tile": 2048, "board_size": 10},
    },
    "Bandit": {
        "Bandit-v0": {"buttons": ["red", "blue", "green", "yellow", "purple"], "p_gap": 0.1,
                      "num_turns": 20},
        "Bandit-v0-hard": {
            "buttons": ["red", "blue", "green", "yellow", "purple", "orange", "pink", "brown",
                        "gray", "black"],
            "p_gap": 0.05,
            "num_turns": 40,
        },
    },
    "Blackjack": {"Blackjack-v0": {"num_hands": 5}, "Blackjack-v0-long": {"num_hands": 15}},
    "Countdown": {"Countdown-v0": {"numbers": [100, 75, 6, 4, 3, 2], "target": 532}},
    "Crosswords": {
        "Crosswords-v0": {"hardcore": False, "max_turns": 30, "num_words": 3},
        "Crosswords-v0-hardcore": {"hardcore": True, "max_turns": 30, "num_words": 3},
    },
    "Cryptarithm": {"Cryptarithm-v0": {"equation": "SEND + MORE = MONEY", "max_turns": 100}},
    "FifteenPuzzle": {"FifteenPuzzle-v0": {"max_turns": 200}},
    "FrozenLake": {
        "FrozenLake-v0": {"size": 4, "num_holes": 3, "randomize_start_goal": False},
        "FrozenLake-v0-random": {"size": 4, "num_holes": 3, "randomize_start_goal": True},
        "FrozenLake-v0-hardcore": {"size": 5, "num_holes": 6, "randomize_start_goal": False},
    },
    "GuessTheNumber": {
        "GuessTheNumber-v0": {"min_number": 1, "max_number": 20, "max_turns": 10},
        "GuessTheNumber-v0-hardcore": {"min_number": 1, "max_number": 50, "max_turns": 10},
    },
    "LightsOut": {"LightsOut-v0": {"size": 5, "max_turns": 20}},
    "LogicPuzzle": {
        "LogicPuzzle-v0": {"difficulty": "easy"},
        "LogicPuzzle-v0-hard": {"difficulty": "hard"},
    },
    "Mastermind": {
        "Mastermind-v0": {"code_length": 4, "num_numbers": 6, "max_turns": 20,
                          "duplicate_numbers": False},
        "Mastermind-v0-hard": {"code_length": 4, "num_numbers": 8, "max_turns": 30,
                               "duplicate_numbers": False},
        "Mastermind-v0-extreme": {"code_length": 6, "num_numbers": 12, "max_turns": 50,
                                  "duplicate_numbers": True},
    },
    "Minesweeper": {
        "Minesweeper-v0": {"rows": 8, "cols": 8, "num_mines": 10, "max_turns": 100},
        "Minesweeper-v0-small": {"rows": 5, "cols": 5, "num_mines": 5, "max_turns": 100},
        "Minesweeper-v0-medium": {"rows": 10, "cols": 10, "num_mines": 20, "max_turns": 100},
        "Minesweeper-v0-hard": {"rows": 12, "cols": 12, "num_mines": 30, "max_turns": 100},
    },
    "PegJump": {"PegJump-v0": {"initial_empty": 5}},
    "RushHour": {"RushHour-v0": {}},
    "Secretary": {"Secretary-v0": {"N": 5}, "Secretary-v0-long": {"N": 10}},
    "Set": {"Set-v0": {}},
    "Slitherlink": {"Slitherlink-v0": {"rows": 4, "cols": 4, "max_turns": 200}},
    "Sudoku": {
        "Sudoku-v0-very-easy": {"clues": 75, "max_turns": 100},
        "Sudoku-v0-easy": {"clues": 70, "max_turns": 100},
        "Sudoku-v0": {"clues": 60, "max_turns": 100},
        "Sudoku-v0-medium": {"clues": 40, "max_turns": 100},
        "Sudoku-v0-hard": {"clues": 20, "max_turns": 100},
    },
    "ThreeCardMonte": {"ThreeCardMonte-v0": {"num_cups": 3, "steps": 10}},
    "TowerOfHanoi": {
        "TowerOfHanoi-v0": {"num_disks": 3, "max_turns": 14},
        "TowerOfHanoi-v0-medium": {"num_disks": 4, "max_turns": 30},
        "TowerOfHanoi-v0-hard": {"num_disks": 5, "max_turns": 62},
        "TowerOfHanoi-v0-hardcore": {"num_disks": 6, "max_turns": 126},
        "TowerOfHanoi-v0-extreme": {"num_disks": 7, "max_turns": 254},
    },
}  # fmt: skip
"""Every single-player game that plays offline, each id with the arguments TextArena 0.7.4
registers for it (tested against TextArena's registry)."""

EXCLUDED: dict[str, str] = {
    "Hangman": "downloads an nltk corpus (words) when the game is made",
    "WordLadder": "downloads an nltk corpus (words) when the game is made",
    "Wordle": "downloads an nltk corpus (words) when the game is made",
    "WordSearch": "downloads an nltk corpus (words) when the game is made",
    "GuessWho": "its opponent is an LLM behind OpenRouter: needs an API key and the network",
    "TwentyQuestions": "its opponent is an LLM behind OpenRouter: needs an API key and the network",
    "Sokoban": "imports numpy, which textarena does not declare",
    "Klondike": "its module is a SyntaxError on Python 3.11",
    "UltimateTexasHoldem": "its module is a SyntaxError on Python 3.11",
}
"""TextArena's single-player games this package does not list, and why (tested: each fails
offline in exactly this way)."""

TA_IDS: dict[str, str] = {ta_id: game for game, ids in GAME_IDS.items() for ta_id in ids}
"""Every id this package passes to `ta.make` (as `<id>-raw`), and its game."""


def env_name(ta_id: str) -> str:
    """The swift-gym name of a TextArena id: `textarena.GuessTheNumber-v0`."""
    return PREFIX + ta_id


def class_name(ta_id: str) -> str:
    """The attribute of `swift_gym_textarena.games` that holds the env class of `ta_id`."""
    return "TA_" + ta_id.replace("-", "_")


TOOL_GAMES = frozenset(
    {"Blackjack", "FifteenPuzzle", "FrozenLake", "Game2048", "GuessTheNumber", "Secretary",
     "ThreeCardMonte"}
)  # fmt: skip
"""The games that offer their move as a tool with `action_format: tool` (`tool_moves.TOOL_MOVES`
has each one's tool), here so that listing declares it without importing them."""

ENV_NAMES: tuple[str, ...] = tuple(env_name(ta_id) for ta_id in TA_IDS)
ENV_CLASSES: dict[str, str] = {
    env_name(ta_id): f"swift_gym_textarena.games:{class_name(ta_id)}" for ta_id in TA_IDS
}
