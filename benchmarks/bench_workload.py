"""The episodes every env benchmark plays: seeds, the solver's replies and random replies.

Replies are drawn before any timing starts, so a benchmark times only the env (or the scheduler)
and both sides of a comparison play exactly the same episodes.
"""

from __future__ import annotations

import random
from collections import deque

import baseline_frozen_lake

from swift_gym_frozen_lake import generate_random_map

MAX_TURNS = 10
"""ms-swift's FrozenLake script runs `--max_turns 10`."""
RANDOM_REPLIES = (
    "<action>up</action>",
    "<action>down</action>",
    "<action>left</action>",
    "<action>right</action>",
    "<action>jump</action>",
    "<action></action>",
    "I think I should go down, then right.",
    "",
)
"""`swift-gym eval --policy random`'s generic replies: valid tags, bad tags, prose, nothing."""


def shortest_path(rows: list[str]) -> list[str]:
    """BFS from S to G. Written here, not swift-gym's `solve`, so that drawing the replies
    before timing leaves swift-gym's map caches as cold as the baseline's."""
    size = len(rows)
    start = next((r, row.index("S")) for r, row in enumerate(rows) if "S" in row)
    previous: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
    queue = deque([start])
    while queue:
        r, c = cell = queue.popleft()
        if rows[r][c] == "G":
            path = []
            while previous[cell] is not None:
                cell, move = previous[cell]  # type: ignore[misc]
                path.append(move)
            return path[::-1]
        for move, (dr, dc) in baseline_frozen_lake.MOVES.items():
            nr, nc = nxt = (r + dr, c + dc)
            inside = 0 <= nr < size and 0 <= nc < size
            if inside and nxt not in previous and rows[nr][nc] != "H":
                previous[nxt] = (cell, move)
                queue.append(nxt)
    raise ValueError(f"unsolvable map {rows}")


def solver_replies(seed: int, size: int = 4, p: float = 0.8) -> list[str]:
    """A shortest path of the seed's map, one `<action>` reply per step."""
    rows = baseline_frozen_lake.random_map(size, p, seed)
    return [f"<action>{move}</action>" for move in shortest_path(rows)]


def random_replies(seed: int, turns: int = MAX_TURNS) -> list[str]:
    """`turns` replies drawn uniformly from RANDOM_REPLIES, the same for every run."""
    rng = random.Random(f"bench/{seed}")
    return [rng.choice(RANDOM_REPLIES) for _ in range(turns)]


def check_same_maps(seeds: range, size: int = 4, p: float = 0.8) -> None:
    """Both envs must play the same lakes, or the comparison means nothing."""
    for seed in seeds:
        ours = list(generate_random_map(size, p, seed))
        theirs = baseline_frozen_lake.random_map(size, p, seed)
        if ours != theirs:
            raise AssertionError(f"seed {seed}: swift-gym map {ours} != baseline map {theirs}")
