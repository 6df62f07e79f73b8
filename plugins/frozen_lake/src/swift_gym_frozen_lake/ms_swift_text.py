"""What the model reads with `text_style: ms_swift`: the words of ms-swift's example plugin.

ms-swift's `examples/megatron/grpo/multi_turn/frozen_lake_plugin.py` (Apache-2.0) is the
FrozenLake most GRPO datasets, checkpoints and results were made with. Its system prompt and
observations are reproduced here byte for byte, so those carry over unchanged; the tests hold
the plugin's recorded texts (tests/data/ms_swift_frozen_lake.json), not its code.

The plugin draws the player as `P`, or `*` on the goal; an edge that stops a move is reported
as the move ("You moved up. Now at row 0, ..."), as there. It has no words for slippery ice or
a step limit, so the config refuses those with this style. After the episode is over (ms-swift
never steps a finished env) the plugin would go on moving; here the step is refused, in
swift-gym's words, with the grid.
"""

from __future__ import annotations

from .maps import Map
from .render import OVER_EVENT, renderer

SYSTEM_PROMPT = (
    "You are playing FrozenLake. You see a grid where:\n"
    "  P = your current position, S = start, G = goal, H = hole, F = safe ice.\n"
    "Move one cell per turn. Reach G to win (+1 reward). Stepping into H ends the episode with "
    "0 reward. Moves that would go off the grid leave you in place.\n\n"
    "On every turn, output your move inside <action>...</action>. The action must be exactly "
    "one of: up, down, left, right.\n\n"
    "Example: <action>down</action>"
)
"""The plugin's system prompt, whatever the reward fields say (it promises +1 and 0)."""

INVALID = (
    "Invalid response: could not find a move. Reply with <action>up|down|left|right</action>.\n\n"
)


class MsSwiftText:
    """The example plugin's words: a sentence, then the grid, as it writes them."""

    system_prompt = SYSTEM_PROMPT

    def __init__(self, rows: Map):
        self._render = renderer(rows)
        self._size = len(rows)
        self._goal = "".join(rows).index("G")

    def _grid(self, cell: int) -> str:
        return self._render.grid(cell, "*" if cell == self._goal else "P")

    def reset(self, cell: int) -> str:
        """The first observation of an episode."""
        r, c = divmod(cell, self._size)
        return (
            f"FrozenLake {self._size}x{self._size}:\n{self._grid(cell)}\n\n"
            f"You are at row {r}, col {c}. Output your first move."
        )

    def step(
        self,
        status: str,
        action: str | None,
        actual: str | None,
        moved: bool,
        cell: int,
        steps: int,
        reply: str,
        limit_reached: bool,
    ) -> str:
        """The observation after a step that ended in `status` (ok, goal, hole, invalid_action).

        Same signature as `SwiftGymText.step`; `actual`, `moved`, `reply` and `limit_reached`
        are not needed: the config refuses slippery ice and step limits with this style.
        """
        grid = self._grid(cell)
        if action is None:
            return INVALID + grid
        if status == "goal":
            return f"You moved {action} and reached the goal!\n{grid}"
        if status == "hole":
            return f"You moved {action} and fell into a hole. Episode over.\n{grid}"
        r, c = divmod(cell, self._size)
        return (
            f"You moved {action}. Now at row {r}, col {c} (step {steps}).\n{grid}\n"
            "Output your next move."
        )

    def over(self, cell: int) -> str:
        """The observation of a step taken after the episode ended."""
        return f"{OVER_EVENT}\n{self._grid(cell)}"
