"""`gymnasium.CliffWalking-v1` and `gymnasium.CliffWalkingSlippery-v1`: walk along a cliff.

A 4x12 grid; start at the bottom-left, goal at the bottom-right, the cliff between them. Every
move costs -1; stepping onto the cliff costs -100 and sends you back to the start, without
ending the episode (Gymnasium's rules). The ids fix the ice: CliffWalking-v1 is dry,
CliffWalkingSlippery-v1 slides sideways with probability 2/3. Gymnasium sets no time limit;
`max_episode_steps` adds one. The oracle is the planner's: on the dry id the 13-move path along
the cliff edge (exact: it always succeeds); on the slippery id the policy with the best
expected return, which keeps away from the edge and reaches the goal in more moves.
"""

from __future__ import annotations

from typing import Any, ClassVar

from swift_gym import EnvConfig

from .base import TabularEnv, Transition
from .config import MAX_EPISODE_STEPS, GymnasiumConfig, limit_field, reward_field
from .grid import grid_view, move_event, target
from .planner import plan_for

ACTIONS = ("up", "right", "down", "left")
"""In Gymnasium's order: action 0 is up."""
ROWS = ("." * 12, "." * 12, "." * 12, "S" + "C" * 10 + "G")
LEGEND = (
    "Legend: P = you, S = start, . = safe ground, C = cliff (stepping on it costs -100 and "
    "sends you back to S), G = goal."
)


class CliffWalkingConfig(GymnasiumConfig):
    """Config of `gymnasium.CliffWalking-v1` and `gymnasium.CliffWalkingSlippery-v1`."""

    invalid_action_reward: float = reward_field(
        -1.0,
        "Reward of a reply without a valid action (the cost of a move, so that stalling never "
        "pays better than walking). Gymnasium is not stepped and the episode goes on.",
    )
    max_episode_steps: int | None = limit_field(
        None,
        "Cut the episode off after this many moves (Gymnasium's TimeLimit). None: no limit, as "
        "Gymnasium registers these ids.",
    )


class CliffWalkingEnv(TabularEnv):
    """Gymnasium's CliffWalking on dry ground."""

    gym_id: ClassVar[str] = "CliffWalking-v1"
    actions: ClassVar[tuple[str, ...]] = ACTIONS
    tool: ClassVar[tuple[str, str, str]] = ("move", "direction", "Move one cell on the grid.")
    config_model: ClassVar[type[EnvConfig]] = CliffWalkingConfig
    config: CliffWalkingConfig
    grid = grid_view(ROWS, LEGEND)
    transitions = grid.transitions[False]
    slippery: ClassVar[bool] = False
    horizon_without_limit: ClassVar[int | None] = MAX_EPISODE_STEPS
    """The planner's horizon: the slippery oracle's walks run past 150 moves now and then."""

    def rules(self) -> list[str]:
        lines = [
            f"You are playing CliffWalking (Gymnasium {self.gym_id}) on a 4x12 grid. Row 0 is "
            "the top row, col 0 the left column.",
            "Each turn, move one cell up, right, down or left. A move off the grid keeps you "
            "in place.",
            "Every move earns -1. Stepping onto the cliff C earns -100 and puts you back on the "
            "start S; the episode goes on. Reaching the goal G ends it (success).",
        ]
        if self.slippery:
            lines.append(
                "The ground is slippery: you move the way you chose with probability 1/3; "
                "otherwise you slide to one of the two perpendicular directions."
            )
        if self.steps_limit is not None:
            lines.append(f"The episode is cut off after {self.steps_limit} moves.")
        return lines

    def view(self, state: Any) -> str:
        return self.grid.view(state)

    def describe(
        self, action: int, before: Any, state: Any, reward: float, terminated: bool
    ) -> Transition:
        metrics = {"moved": 0.0 if before == state else 1.0, "fell": 0.0}
        chosen = ACTIONS[action]
        if reward <= -100 and not terminated:
            r, c = target(self.grid, before, chosen)
            if ROWS[r][c] == "C":
                text = f"You moved {chosen}, onto the cliff (-100)."
            else:  # the intended move is safe: a slip went over the edge
                text = f"You tried to move {chosen}, but slipped onto the cliff (-100)."
            text += " You are back at the start."
            return "cliff", False, text, {**metrics, "fell": 1.0}
        text = move_event(ACTIONS, self.grid, action, before, state, self.slippery)
        if terminated:
            return "goal", True, text + " You reached the goal. The episode is over.", metrics
        return "ok", False, text, metrics

    def state_info(self, state: Any) -> dict[str, Any]:
        return {"position": list(self.grid.cell(state))}

    def oracle_action(self) -> int:
        """The planner's action for this cell and the moves left (see the module docstring)."""
        return plan_for(self).action(int(self.state), self.steps_left)


class CliffWalkingSlipperyEnv(CliffWalkingEnv):
    """Gymnasium's CliffWalkingSlippery-v1: the same cliff on slippery ground."""

    gym_id: ClassVar[str] = "CliffWalkingSlippery-v1"
    slippery: ClassVar[bool] = True
    transitions = CliffWalkingEnv.grid.transitions[True]
