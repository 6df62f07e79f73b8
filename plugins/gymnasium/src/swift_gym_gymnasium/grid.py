"""Plain-text grids for the grid games (FrozenLake, CliffWalking).

Gymnasium's "ansi" render marks the player with colour codes (FrozenLake) or draws no start
cell (CliffWalking); a model needs plain ASCII that reads the same in every log. The view of
each cell is built once per map and cached, so a step costs a dictionary lookup.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

DIRECTIONS = {"left": (0, -1), "down": (1, 0), "right": (0, 1), "up": (-1, 0)}


class GridView:
    """The view of a letter grid with `P` at the player's cell, then the legend and position."""

    def __init__(self, rows: tuple[str, ...], legend: str):
        self.rows = rows
        self.width = len(rows[0])
        self.legend = legend
        self._text = "\n".join(" ".join(row) for row in rows)
        self._views: dict[int, str] = {}
        self._cells = [divmod(state, self.width) for state in range(len(rows) * self.width)]
        self.transitions: dict[bool, dict[tuple[Any, ...], Any]] = {False: {}, True: {}}
        """The games' described transitions on this map, on dry and on slippery ground (see
        `base.TabularEnv`): the words differ, as only dry ground tells an edge from a slip."""

    def cell(self, state: int) -> tuple[int, int]:
        """(row, col) of a Gymnasium state number."""
        return self._cells[state]

    def letter(self, state: int) -> str:
        r, c = self.cell(state)
        return self.rows[r][c]

    def view(self, state: int) -> str:
        text = self._views.get(state)
        if text is None:
            r, c = self.cell(state)
            i = 2 * (r * self.width + c)  # each row with its separator is 2 * width characters
            grid = self._text[:i] + "P" + self._text[i + 1 :]
            text = self._views[state] = f"{grid}\n\n{self.legend}\nYou are at row {r}, col {c}."
        return text


@lru_cache(maxsize=64)
def grid_view(rows: tuple[str, ...], legend: str) -> GridView:
    """The shared `GridView` of a map: envs of a run play a few maps."""
    return GridView(rows, legend)


def target(view: GridView, state: int, direction: str) -> tuple[int, int]:
    """The cell a move in `direction` heads for from `state` (an edge keeps you in place)."""
    (r, c), (dr, dc) = view.cell(state), DIRECTIONS[direction]
    height = len(view.rows)
    return (min(max(r + dr, 0), height - 1), min(max(c + dc, 0), view.width - 1))


def move_event(
    names: tuple[str, ...], view: GridView, action: int, before: int, after: int, slippery: bool
) -> str:
    """What a move did: moved, stopped by the edge, or slipped (told from the two cells)."""
    chosen = names[action]
    (r0, c0), (r1, c1) = view.cell(before), view.cell(after)
    if (r1 - r0, c1 - c0) == DIRECTIONS[chosen]:
        return f"You moved {chosen}."
    if (r1, c1) == (r0, c0):
        if not slippery:
            return f"You tried to move {chosen}, but the edge stops you; you stay in place."
        return f"You did not move: the edge stopped your move {chosen}, or you slipped into it."
    for name, delta in DIRECTIONS.items():
        if (r1 - r0, c1 - c0) == delta:
            return f"You tried to move {chosen}, but slipped and moved {name}."
    return f"You tried to move {chosen}."  # pragma: no cover - moves are one cell
