"""Scorers of reasoning-gym 0.1.25 that reward answers that are no answer, and what they should
give instead.

A constant non-answer that scores well on every item is the first thing GRPO learns, so these
scores are corrected after the scorer runs (the junk scan, tests/test_rg_junk.py, finds them):

- game_of_life_halting compares `bool(answer) == bool(entry["answer"])`, and the stored answers
  are the strings "True" and "False", both true: any non-empty answer scores 1.0. Here only the
  stored answer (in any case) scores 1.0, as the question asks ("reply 'True' ... 'False'").
- complex_arithmetic scores `min(1.0, exp(-distance))`, and `nan` gives a distance of NaN, so
  `min` returns 1.0. Here an answer that reads as a number that is not finite scores 0.
- coin_flip gives partial credit for a matching prefix, divided by the length of the shorter of
  the two numbers: `0` matches all of itself, so it scores 1.0 on every probability below 1
  (`0.3` does on 0.3125). Here the prefix is divided by the longer, as a share of the digits.
"""

from __future__ import annotations

import cmath
from collections.abc import Callable
from fractions import Fraction
from typing import Any

COIN_FLIP_TOLERANCE = 1e-4
"""coin_flip's own `tol`: an answer this close to the probability is right (its scorer's 1.0)."""


def _game_of_life_halting(answer: str, entry: dict[str, Any], value: float) -> float:
    return 1.0 if answer.strip().lower() == str(entry.get("answer")).strip().lower() else 0.0


def _complex_arithmetic(answer: str, entry: dict[str, Any], value: float) -> float:
    from reasoning_gym.algebra.complex_arithmetic import ComplexArithmeticDataset

    try:
        number = ComplexArithmeticDataset.parse_string_to_complex(answer)
    except (ValueError, TypeError, OverflowError):
        return value
    return 0.0 if isinstance(number, complex) and not cmath.isfinite(number) else value


def _coin_flip(answer: str, entry: dict[str, Any], value: float) -> float:
    try:  # as the scorer reads both (the guard keeps exponents small)
        given = float(Fraction(answer.replace(",", "")))
        expected = float(Fraction(str(entry.get("answer")).replace(",", "")))
    except (ValueError, ZeroDivisionError, OverflowError):
        return value
    if abs(given - expected) <= COIN_FLIP_TOLERANCE:
        return value
    given_text, expected_text = f"{given:.10g}", f"{expected:.10g}"
    prefix = 0
    for a, b in zip(given_text, expected_text, strict=False):
        if a != b:
            break
        prefix += 1
    return min(value, prefix / max(len(given_text), len(expected_text)))


_CORRECTIONS: dict[str, Callable[[str, dict[str, Any], float], float]] = {
    "game_of_life_halting": _game_of_life_halting,
    "complex_arithmetic": _complex_arithmetic,
    "coin_flip": _coin_flip,
}
CORRECTED = frozenset(_CORRECTIONS)
"""The tasks whose scorer's score is corrected here."""

WHY = {
    "game_of_life_halting": "its scorer gives 1.0 to any non-empty answer; only the stored "
    "True or False scores here",
    "complex_arithmetic": "its scorer gives 1.0 to nan; a number that is not finite scores 0 here",
    "coin_flip": "its scorer gives 1.0 to any prefix of the probability (0 for 0.3125); a "
    "matching prefix counts as a share of the longer number here",
}


def correct(task: str, answer: str | None, entry: dict[str, Any], value: float) -> float:
    """The score `answer` earns on `entry`, where reasoning-gym's `task` scorer gave `value`."""
    fix = _CORRECTIONS.get(task)
    if fix is None or answer is None or value <= 0.0:
        return value
    return min(value, fix(answer, entry, value))
