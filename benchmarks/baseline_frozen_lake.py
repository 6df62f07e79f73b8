"""THE BASELINE: FrozenLake written the way ms-swift 4.6's example plugin writes it.

Every benchmark of an env compares swift-gym's FrozenLake with this class. It follows
`examples/megatron/grpo/multi_turn/frozen_lake_plugin.py` of ms-swift: a plain dict config read
with `int(env_config.get('size', 4))`, no validation, no info beyond a few keys, the map drawn
with `random.Random(seed)` at every reset by the same algorithm (row-major cells, then start and
goal, redrawn until a path joins them), the first `<action>` tag else the last bare direction
word, and the grid re-rendered from the rows on every step. It is written here, not imported,
so it runs without ms-swift; ms-swift only needs a callable taking `env_config`, and the
scheduler benchmark registers it by hand in `swift.rollout.gym_env.envs`, as an
`--external_plugins` file would.
"""

from __future__ import annotations

import random
import re
from typing import Any

NAME = "baseline_frozen_lake"
SYSTEM_PROMPT = (
    "You are playing FrozenLake. You see a grid where:\n"
    "  P = your current position, S = start, G = goal, H = hole, F = safe ice.\n"
    "Move one cell per turn. Reach G to win (+1 reward). Stepping into H ends the episode "
    "with 0 reward. Moves that would go off the grid leave you in place.\n\n"
    "On every turn, output your move inside <action>...</action>. "
    "The action must be exactly one of: up, down, left, right.\n\n"
    "Example: <action>down</action>"
)
MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
_TAG = re.compile(r"<action>\s*(up|down|left|right)\s*</action>", re.IGNORECASE)
_WORD = re.compile(r"\b(up|down|left|right)\b", re.IGNORECASE)


def _solvable(board: list[list[str]], size: int) -> bool:
    start = next((r, row.index("S")) for r, row in enumerate(board) if "S" in row)
    todo, seen = [start], set()
    while todo:
        r, c = todo.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        for dr, dc in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < size and 0 <= nc < size:
                if board[nr][nc] == "G":
                    return True
                if board[nr][nc] != "H":
                    todo.append((nr, nc))
    return False


def random_map(size: int = 4, p: float = 0.8, seed: int | None = None) -> list[str]:
    """The example's draw loop (unbounded, as there)."""
    rng = random.Random(seed)
    while True:
        board = [["F" if rng.random() < p else "H" for _ in range(size)] for _ in range(size)]
        sr, sc = rng.randrange(size), rng.randrange(size)
        gr, gc = rng.randrange(size), rng.randrange(size)
        if (sr, sc) == (gr, gc):
            continue
        board[sr][sc], board[gr][gc] = "S", "G"
        if _solvable(board, size):
            return ["".join(row) for row in board]


def parse(text: str) -> str | None:
    """First `<action>` tag, else the last bare direction word, as the example does."""
    match = _TAG.search(text)
    if match:
        return match.group(1).lower()
    words = _WORD.findall(text)
    return words[-1].lower() if words else None


def render(grid: list[str], row: int, col: int) -> str:
    lines = []
    for r, line in enumerate(grid):
        cells = list(line)
        if r == row:
            cells[col] = "P" if cells[col] != "G" else "*"
        lines.append(" ".join(cells))
    return "\n".join(lines)


class BaselineFrozenLakeEnv:
    """ms-swift's gym protocol (`__init__(env_config)`, async reset/step/close), unvalidated."""

    def __init__(self, env_config: dict[str, Any]):
        self.env_config = env_config
        self.size = int(env_config.get("size", 4))
        self.p = float(env_config.get("p", 0.8))
        seed = env_config.get("seed")
        self.seed = int(seed) if seed is not None else None
        self.grid: list[str] = []
        self.row = self.col = self.steps = 0

    async def reset(self, config: Any = None) -> tuple[str, dict[str, Any], str]:
        self.grid = random_map(self.size, self.p, self.seed)
        self.row = next(r for r, line in enumerate(self.grid) if "S" in line)
        self.col = self.grid[self.row].index("S")
        self.steps = 0
        observation = (
            f"FrozenLake {self.size}x{self.size}:\n{render(self.grid, self.row, self.col)}\n\n"
            f"You are at row {self.row}, col {self.col}. Output your first move."
        )
        return observation, {"seed": self.seed, "size": self.size}, SYSTEM_PROMPT

    async def step(self, action: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        move = parse(action[-1].get("content", "") if action else "")
        self.steps += 1
        info: dict[str, Any] = {"seed": self.seed, "step": self.steps, "parsed_action": move}
        if move is None:
            observation = (
                "Invalid response: could not find a move. Reply with "
                f"<action>up|down|left|right</action>.\n\n{render(self.grid, self.row, self.col)}"
            )
            return observation, 0.0, False, {**info, "status": "invalid_action"}
        dr, dc = MOVES[move]
        self.row = max(0, min(len(self.grid) - 1, self.row + dr))
        self.col = max(0, min(len(self.grid[0]) - 1, self.col + dc))
        cell = self.grid[self.row][self.col]
        grid = render(self.grid, self.row, self.col)
        if cell == "G":
            return (
                f"You moved {move} and reached the goal!\n{grid}",
                1.0,
                True,
                {**info, "status": "goal"},
            )
        if cell == "H":
            observation = f"You moved {move} and fell into a hole. Episode over.\n{grid}"
            return observation, 0.0, True, {**info, "status": "hole"}
        observation = (
            f"You moved {move}. Now at row {self.row}, col {self.col} (step {self.steps}).\n"
            f"{grid}\nOutput your next move."
        )
        return observation, 0.0, False, {**info, "status": "ok"}

    async def close(self) -> None:
        pass
