"""One reply, scored as an episode scores it: the answer read from its tags (answers.py), kept
from scorers that would run it as code or make huge numbers of it (guard.py), scored by the
task's reasoning-gym scorer (items.py), and corrected where that scorer rewards non-answers
(holes.py). One function, so the env and the junk scan (tests/test_rg_junk.py) score alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .answers import read_answer
from .guard import refusal
from .holes import WHY, correct
from .items import score


@dataclass(frozen=True)
class Judgement:
    """What one reply scored, and why when it was not reasoning-gym's plain score."""

    answer: str | None
    value: float
    refused: bool = False
    """A guard kept the answer from the scorer (it was not called)."""
    note: str | None = None
    """Why the answer was not scored, for the model."""
    error: str | None = None
    """The scorer's exception, when it raised."""
    scorer_value: float | None = None
    """reasoning-gym's own score, when a correction (holes.py) lowered it."""
    corrected: str | None = None
    """Why it was lowered."""


def judge(task: str, dataset: Any, entry: dict[str, Any], text: str) -> Judgement:
    """Score the reply `text` to `entry` with `task`'s scorer. Blocking: run it in a thread."""
    answer, scorable, note = read_answer(text)
    if not scorable:
        return Judgement(answer, 0.0, note=note)
    refused = refusal(task, answer, entry)
    if refused is not None:
        return Judgement(answer, 0.0, refused=True, note=refused)
    value, error = score(task, dataset, answer, entry)
    fixed = correct(task, answer, entry, value)
    if fixed < value:
        return Judgement(
            answer, fixed, note=note, error=error, scorer_value=value, corrected=WHY[task]
        )
    return Judgement(answer, value, note=note, error=error)
