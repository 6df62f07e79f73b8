"""`--mix name:weight,...`: how many rows each env gets, and in which order, reproducibly."""

from __future__ import annotations

import math
import random

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
    """Rows per env, proportional to the weights and summing to `rows` (largest remainder)."""
    total = sum(weight for _, weight in mix)
    exact = [(name, rows * weight / total) for name, weight in mix]
    counts = {name: math.floor(share) for name, share in exact}
    left = rows - sum(counts.values())
    by_remainder = sorted(exact, key=lambda item: item[1] - math.floor(item[1]), reverse=True)
    for name, _ in by_remainder[:left]:
        counts[name] += 1
    return counts


def row_envs(mix: list[tuple[str, float]], rows: int, seed: int) -> list[str]:
    """The env of each row: exact counts, shuffled by a private RNG seeded with `seed`."""
    envs = [name for name, count in row_counts(mix, rows).items() for _ in range(count)]
    random.Random(f"swift-gym/mix/{seed}").shuffle(envs)
    return envs
