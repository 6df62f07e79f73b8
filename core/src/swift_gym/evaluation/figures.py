"""Numbers as the summaries, `EvalResult`'s repr and the report show them: fixed decimals for
ordinary values, 4 significant digits from `LARGE` on (rewards may be anything up to 1.8e308,
which has 309 digits in fixed notation)."""

from __future__ import annotations

import math

LARGE = 1e12
"""Numbers from this size on are shown in scientific notation."""


def figure(value: float | None, digits: int = 3, signed: bool = False) -> str:
    """`value` with `digits` decimals (a sign always, if `signed`); n/a for None or NaN."""
    if value is None or math.isnan(value):
        return "n/a"
    sign = "+" if signed else ""
    if abs(value) < LARGE:
        return f"{value:{sign}.{digits}f}"
    return f"{value:{sign}.4g}"
