"""Exact solvers for the games that have a cheap one, from what the player can see.

GuessTheNumber: bisection over the range the hints leave (always wins when the turn limit is at
least ceil(log2(max - min + 1)) guesses; the registered ids allow 10 for ranges of 20 and 50).
TowerOfHanoi: the optimal next move from any position (the classic recursion on the largest
disk not yet on C), so 2**n - 1 moves from the start, within every registered turn limit.
The other games have no oracle here (see the package README).
"""

from __future__ import annotations

from typing import Any


def guess_the_number(game: Any) -> str:
    """Bisect: the middle of the numbers the hints so far leave open."""
    low, high = game.min_number, game.max_number
    for guess, hint in game.state.game_state.get("guess_history", []):
        if hint == "higher":
            low = max(low, guess + 1)
        elif hint == "lower":
            high = min(high, guess - 1)
    return f"[{(low + high) // 2}]"


def tower_of_hanoi(game: Any) -> str:
    """The optimal next move towards all disks on C."""
    towers = game.state.game_state["towers"]
    where = {disk: peg for peg, disks in towers.items() for disk in disks}
    move = _hanoi_move(where, max(where, default=0), "C")
    if move is None:
        raise RuntimeError("the puzzle is already solved")
    return f"[{move[0]} {move[1]}]"


def _hanoi_move(where: dict[int, str], disk: int, target: str) -> tuple[str, str] | None:
    """The first move of the shortest way to bring disks 1..disk onto `target`."""
    while disk > 0:
        if where[disk] == target:
            disk -= 1
            continue
        spare = ({"A", "B", "C"} - {where[disk], target}).pop()
        smaller = _hanoi_move(where, disk - 1, spare)
        return (where[disk], target) if smaller is None else smaller
    return None


ORACLES = {"GuessTheNumber": guess_the_number, "TowerOfHanoi": tower_of_hanoi}
