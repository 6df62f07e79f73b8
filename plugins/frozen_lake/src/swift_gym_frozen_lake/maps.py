"""FrozenLake maps: seeded generation, parsing and validation, and shortest paths.

A map is a tuple of equal-length row strings over `S` (start), `F` (frozen), `H` (hole) and
`G` (goal), row 0 at the top. Generation reproduces the ms-swift example plugin draw for draw,
so a dataset's `(size, p, seed)` gives the same lake here as there; unlike it, the number of
draws is bounded, so a degenerate `p` fails with a clear error instead of looping forever.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from swift_gym import ConfigProblem, InvalidConfigError

ENV_NAME = "frozen_lake"
ACTIONS: tuple[str, ...] = ("up", "down", "left", "right")
"""Every action, in the order ties are broken on shortest paths."""
DELTAS: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}
CELLS = frozenset("SFHG")
MIN_SIZE = 2
MAX_SIZE = 64
DEFAULT_MAX_ATTEMPTS = 1000
"""Draws before giving up; 1000 draws of a 64x64 lake take well under a second."""

Map = tuple[str, ...]


def generate_random_map(
    size: int = 4, p: float = 0.8, seed: int | None = None, max_attempts: int = DEFAULT_MAX_ATTEMPTS
) -> Map:
    """A solvable random map, identical to the ms-swift example's for the same arguments.

    Draw loop (one `random.Random(seed)`, never the global RNG): each cell in row order is `F`
    with probability `p`, else `H`; then start and goal are drawn as (row, col); the draw is
    repeated when they coincide or when no path joins them. Raises `InvalidConfigError` on
    field `p` after `max_attempts` draws.
    """
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be in {MIN_SIZE}..{MAX_SIZE}, got {size!r}")
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p!r}")
    return (
        _generate(size, p, seed, max_attempts)
        if seed is not None
        else _draw(size, p, seed, max_attempts)
    )


@lru_cache(maxsize=1024)
def _generate(size: int, p: float, seed: int, max_attempts: int) -> Map:
    """Seeded maps are pure functions of their arguments; GRPO groups share them, so cache."""
    return _draw(size, p, seed, max_attempts)


def _draw(size: int, p: float, seed: int | None, max_attempts: int) -> Map:
    rng = random.Random(seed)
    draw, randrange = rng.random, rng.randrange
    cells = size * size
    for _ in range(max_attempts):
        grid = ["F" if draw() < p else "H" for _ in range(cells)]
        start = (randrange(size), randrange(size))
        goal = (randrange(size), randrange(size))
        if start == goal:
            continue
        grid[start[0] * size + start[1]] = "S"
        grid[goal[0] * size + goal[1]] = "G"
        if _connected(grid, size, start[0] * size + start[1], goal[0] * size + goal[1]):
            return tuple("".join(grid[r * size : (r + 1) * size]) for r in range(size))
    problem = ConfigProblem(
        "p",
        f"no solvable {size}x{size} map in {max_attempts} draws; raise p or change the seed",
        p,
    )
    raise InvalidConfigError(ENV_NAME, [problem])


def _connected(flat: Sequence[str], size: int, source: int, target: int) -> bool:
    """Whether `target` is reachable from `source` over non-hole cells; stops once found."""
    moves = move_table(size)
    seen = bytearray(size * size)
    seen[source] = 1
    stack = [source]
    while stack:
        cell = stack.pop()
        if cell == target:
            return True
        for nxt in moves[cell]:
            if not seen[nxt] and flat[nxt] != "H":
                seen[nxt] = 1
                stack.append(nxt)
    return False


def parse_map(value: str | Sequence[str]) -> Map:
    """Rows from "SF/FG", "SF\\nFG" or ["SF", "FG"]; whitespace around and inside rows is dropped.

    Only splits and normalises; `validate_map` checks the result.
    """
    if isinstance(value, str):
        text = value.strip()
        parts = text.replace("\r\n", "\n").replace("/", "\n").split("\n") if text else []
    elif isinstance(value, (list, tuple)) and all(isinstance(row, str) for row in value):
        parts = list(value)
    else:
        raise ValueError(
            "map must be a string of rows separated by '/' or newlines, or a list of row strings"
        )
    return tuple("".join(part.split()) for part in parts)


def validate_map(rows: Map) -> Map:
    """`rows` if it is a square, playable, solvable map; else ValueError saying what is wrong."""
    size = len(rows)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"map must have {MIN_SIZE} to {MAX_SIZE} rows, got {size}")
    widths = sorted({len(row) for row in rows})
    if widths != [size]:
        bad = next(r for r, row in enumerate(rows) if len(row) != size)
        raise ValueError(
            f"map must be square: {size} rows, but row {bad} has {len(rows[bad])} cells "
            f"(every row needs {size})"
        )
    letters = set("".join(rows))
    if not letters <= CELLS:
        bad_letters = ", ".join(repr(ch) for ch in sorted(letters - CELLS))
        raise ValueError(
            f"map may only use S (start), F (frozen), H (hole), G (goal); found {bad_letters}"
        )
    for letter, meaning in (("S", "start"), ("G", "goal")):
        count = sum(row.count(letter) for row in rows)
        if count != 1:
            raise ValueError(f"map must have exactly one {letter} ({meaning}), found {count}")
    start, goal = find(rows, "S"), find(rows, "G")
    if distances_to(rows, goal)[start[0] * size + start[1]] < 0:
        raise ValueError("map is unsolvable: holes cut every path from S to G")
    return rows


def find(rows: Map, letter: str) -> tuple[int, int]:
    """(row, col) of the first `letter` in `rows`, row-major; ValueError when absent."""
    for r, row in enumerate(rows):
        c = row.find(letter)
        if c >= 0:
            return (r, c)
    raise ValueError(f"map has no {letter}")


def distances_to(rows: Map, target: tuple[int, int]) -> list[int]:
    """BFS steps from every cell to `target` over non-hole cells (flat, row-major); -1 = never.

    Moves are symmetric, so this is also the distance from `target` to every cell.
    """
    size = len(rows)
    flat = "".join(rows)
    dist = [-1] * (size * size)
    origin = target[0] * size + target[1]
    dist[origin] = 0
    queue = deque([origin])
    while queue:
        cell = queue.popleft()
        r, c = divmod(cell, size)
        step = dist[cell] + 1
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < size and 0 <= nc < size:
                nxt = nr * size + nc
                if dist[nxt] < 0 and flat[nxt] != "H":
                    dist[nxt] = step
                    queue.append(nxt)
    return dist


@dataclass(frozen=True)
class Layout:
    """Everything the env's hot path needs about one map, computed once per distinct map."""

    rows: Map
    size: int
    cells: str
    """The rows joined: `cells[i]` is the letter of flat cell i = row * size + col."""
    start: int
    goal: int
    dist: tuple[int, ...]
    """Shortest-path steps from each flat cell to the goal; -1 if unreachable or a hole."""
    moves: tuple[tuple[int, int, int, int], ...]
    """`moves[cell][k]`: the cell reached from `cell` by `ACTIONS[k]`; off-grid stays put."""

    @property
    def optimal_steps(self) -> int:
        """Length of a shortest path from S to G."""
        return self.dist[self.start]

    def best_action(self, cell: int) -> str | None:
        """First action (in `ACTIONS` order) on a shortest path from `cell`; None at G."""
        here = self.dist[cell]
        if here <= 0:
            return None
        for k, nxt in enumerate(self.moves[cell]):
            if self.dist[nxt] == here - 1:
                return ACTIONS[k]
        return None  # pragma: no cover - BFS distances always have a decreasing neighbour


@lru_cache(maxsize=MAX_SIZE)
def move_table(size: int) -> tuple[tuple[int, int, int, int], ...]:
    """`Layout.moves` of every `size` x `size` map: it depends on the size only, so it is shared."""
    moves = []
    for r in range(size):
        for c in range(size):
            here = r * size + c
            step = []
            for dr, dc in DELTAS.values():
                nr, nc = r + dr, c + dc
                step.append(nr * size + nc if 0 <= nr < size and 0 <= nc < size else here)
            moves.append(tuple(step))
    return tuple(moves)  # type: ignore[return-value]


@lru_cache(maxsize=256)
def layout(rows: Map) -> Layout:
    """The `Layout` of a valid map (cached: many envs of a run share a few maps).

    Built once per distinct map, so with a new seed per row this is on every env's path: the
    move table is shared by size and the BFS walks it level by level (no bounds checks).
    """
    size = len(rows)
    cells = "".join(rows)
    start, goal = cells.index("S"), cells.index("G")
    moves = move_table(size)
    dist = [-1] * (size * size)
    dist[goal] = 0
    frontier, steps = [goal], 0
    while frontier:
        steps += 1
        reached = []
        for cell in frontier:
            for nxt in moves[cell]:
                if dist[nxt] < 0 and cells[nxt] != "H":
                    dist[nxt] = steps
                    reached.append(nxt)
        frontier = reached
    return Layout(rows, size, cells, start, goal, tuple(dist), moves)


def solve(rows: str | Sequence[str]) -> list[str]:
    """A shortest action sequence from S to G (ties broken in `ACTIONS` order).

    Accepts anything `parse_map` does; raises ValueError if the map is invalid or unsolvable.
    """
    grid = layout(validate_map(parse_map(rows)))
    path, cell = [], grid.start
    while cell != grid.goal:
        action = grid.best_action(cell)
        assert action is not None  # validate_map guarantees a path
        path.append(action)
        cell = grid.moves[cell][ACTIONS.index(action)]
    return path
