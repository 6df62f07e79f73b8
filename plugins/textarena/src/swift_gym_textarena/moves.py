r"""Replies whose moves no game can read safely: refused before a game sees them.

TextArena's games find their move in the reply with regular expressions and `int()`, in a
worker thread. Python's `re` holds the GIL while it matches, so a pattern that backtracks
freezes the caller's event loop, and `call_timeout` cannot stop it; and `int()` refuses more
than 4,300 digits, which ended the episode as an env error. Found over every id
(tests/test_ta_moves.py), at the default 8,192 characters:

- Bandit's `\[(.*)\]` runs to the end of the line from every `[` left open on it: 8,192 `[`
  take 1.7 s (65,536: over 10 s);
- TowerOfHanoi's `\[([ABCabc])\s*,?\s*([ABCabc])\]` and PegJump's
  `\[(\d{1,2})\s*\s*(\d{1,2})\]` backtrack in quadratic time over a run of blanks in a move:
  3 s;
- GuessTheNumber, LightsOut, Minesweeper, Set, Slitherlink, Sudoku and ThreeCardMonte call
  `int()` on a `\d+` in brackets: 8,000 digits raise ValueError; Set's `isdigit()` lets `²`
  through, which `int()` refuses too.

Every move of these games is a few characters in square brackets (`[A C]`, `[3 2]`, `[red]`),
so a reply goes to the game only if each `[` is closed by a `]` within `MAX_MOVE_CHARS`
characters, it has at most `MAX_BRACKETS` of them, and no bracket holds a digit that `int()`
cannot read. That bounds every pattern above: a run of blanks or digits in a move is shorter
than `MAX_MOVE_CHARS`, and there are at most `MAX_BRACKETS` places for a match to start. A
reply that breaks a rule is an ordinary invalid move, told why; the game is not called.
"""

from __future__ import annotations

MAX_MOVE_CHARS = 64
"""From a `[` to the next `]`: the longest move is a few words (`[library Alice O]`)."""
MAX_BRACKETS = 128
"""`[` in one reply: a move or several (Crosswords takes many), and lists in the reasoning."""


def problem(text: str) -> str | None:
    """Why the moves in `text` cannot go to a game (a sentence for the model), or None."""
    opened = text.count("[")
    if opened > MAX_BRACKETS:
        return (
            f"Your reply has {opened} '[' characters; at most {MAX_BRACKETS} are read. Keep "
            "square brackets for your move."
        )
    start = text.find("[")
    while start >= 0:
        end = text.find("]", start + 1, start + 1 + MAX_MOVE_CHARS)
        if end < 0:
            return (
                f"Your reply has a '[' that is not closed by a ']' within {MAX_MOVE_CHARS} "
                "characters. A move is short: write it in square brackets, as the rules show."
            )
        move = text[start + 1 : end]
        odd = None if move.isascii() else next((c for c in move if _unreadable_digit(c)), None)
        if odd is not None:
            return (
                f"Your reply has the character {odd!r} in square brackets; write numbers in a "
                "move with the digits 0 to 9."
            )
        start = text.find("[", start + 1)
    return None


def _unreadable_digit(char: str) -> bool:
    """A digit that `int()` refuses (superscripts, circled digits), though `isdigit()` holds."""
    return char.isdigit() and not char.isdecimal()
