"""`--mix name:weight,...`: how many rows each env gets, and in which order, reproducibly.

The order is drawn row by row (memory does not grow with the number of rows), so `-n` can be
as large as the seeds allow.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from fractions import Fraction

from .errors import CommandError


def parse_mix(text: str) -> list[tuple[str, float]]:
    """`"a:3,b:1"` -> `[("a", 3.0), ("b", 1.0)]`; a name without weight weighs 1.

    The weight is what follows the last ':', so `distribution:name:2` works too.
    """
    mix: list[tuple[str, float]] = []
    for part in (piece.strip() for piece in text.split(",")):
        if not part:
            continue
        name, _, weight_text = part.rpartition(":")
        try:
            weight = float(weight_text)
        except ValueError:
            name, weight = part, 1.0
        if not name or not math.isfinite(weight) or weight <= 0:
            raise CommandError(f"--mix {part!r}: expected NAME:WEIGHT with a weight above 0")
        if any(name == seen for seen, _ in mix):
            raise CommandError(f"--mix names {name!r} twice")
        mix.append((name, weight))
    if not mix:
        raise CommandError("--mix is empty: give NAME:WEIGHT,NAME:WEIGHT")
    return mix


def row_counts(mix: list[tuple[str, float]], rows: int) -> dict[str, int]:
    """Rows per env, proportional to the weights and summing to `rows` (largest remainder).

    Exact arithmetic: floats would lose rows once `rows` passes 2**53.
    """
    total = sum(Fraction(weight) for _, weight in mix)
    exact = [(name, rows * Fraction(weight) / total) for name, weight in mix]
    counts = {name: math.floor(share) for name, share in exact}
    left = rows - sum(counts.values())
    by_remainder = sorted(exact, key=lambda item: item[1] - math.floor(item[1]), reverse=True)
    for name, _ in by_remainder[:left]:
        counts[name] += 1
    return counts


def row_envs(mix: list[tuple[str, float]], rows: int, seed: int) -> Iterator[str]:
    """The env of each row, in a random order seeded with `seed` that gives each env exactly
    its count: every row draws among the rows still to place (a private RNG, never the global)."""
    rng = random.Random(f"swift-gym/mix/{seed}")
    left = row_counts(mix, rows)
    remaining = rows
    for _ in range(rows):
        name = _nth(left, rng.randrange(remaining))
        left[name] -= 1
        remaining -= 1
        yield name


def _nth(counts: dict[str, int], pick: int) -> str:
    """The env holding row `pick` when the rows left are laid out env by env."""
    for name, count in counts.items():
        if pick < count:
            return name
        pick -= count
    raise ValueError(f"row {pick} is past the rows left")
