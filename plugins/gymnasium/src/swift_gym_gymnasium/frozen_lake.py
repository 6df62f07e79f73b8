"""`gymnasium.FrozenLake-v1` and `gymnasium.FrozenLake8x8-v1`: cross the lake, miss the holes.

Gymnasium's defaults stand: slippery ice (the intended move with probability `success_rate`,
1/3, else one of the two perpendicular moves), reward 1 at the goal and 0 elsewhere, a time
limit of 100 moves (200 on 8x8). The oracle is the planner's (see planner.py): on dry ice the
shortest path, which always succeeds; on slippery ice the policy with the highest probability
of reaching the goal before the time limit, which is below 1.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from swift_gym import EnvConfig

from .base import TabularEnv, Transition
from .config import GymnasiumConfig, limit_field, needs, probability_field
from .grid import grid_view, move_event
from .planner import plan_for

ACTIONS = ("left", "down", "right", "up")
"""In Gymnasium's order: action 0 is left."""
LEGEND = "Legend: P = you, S = start, F = frozen ice (safe), H = hole, G = goal."


class FrozenLake8x8Config(GymnasiumConfig):
    """Config of `gymnasium.FrozenLake8x8-v1` (the 8x8 map of Gymnasium)."""

    is_slippery: bool = Field(
        True, description="Gymnasium's slippery ice (its default): moves can slide sideways."
    )
    success_rate: float = probability_field(
        1 / 3,
        "With is_slippery: probability of moving the intended way; each perpendicular move "
        "has half the rest.",
        above_zero=True,
    )
    max_episode_steps: int = limit_field(
        200, "Gymnasium's time limit (TimeLimit): the episode is cut off after this many moves."
    )

    @model_validator(mode="after")
    def _slippery_fields(self) -> FrozenLake8x8Config:
        needs(self, "success_rate", "is_slippery")
        return self


class FrozenLakeConfig(FrozenLake8x8Config):
    """Config of `gymnasium.FrozenLake-v1`: the 4x4 map by default, Gymnasium's 8x8 on request."""

    map_name: Literal["4x4", "8x8"] = Field("4x4", description="Gymnasium's predefined map.")
    max_episode_steps: int = limit_field(
        100, "Gymnasium's time limit (TimeLimit): the episode is cut off after this many moves."
    )


class FrozenLakeEnv(TabularEnv):
    """Gymnasium's FrozenLake: walk from S to G on the ice without falling into a hole."""

    gym_id: ClassVar[str] = "FrozenLake-v1"
    actions: ClassVar[tuple[str, ...]] = ACTIONS
    tool: ClassVar[tuple[str, str, str]] = ("move", "direction", "Move one cell on the lake.")
    gym_defaults: ClassVar[dict[str, Any]] = {
        "is_slippery": True,
        "success_rate": 1 / 3,
        "map_name": "4x4",
    }
    gym_limit: ClassVar[int | None] = 100
    config_model: ClassVar[type[EnvConfig]] = FrozenLakeConfig
    config: FrozenLake8x8Config

    def __init__(self, env_config: Any = None):
        super().__init__(env_config)
        rows = tuple(bytes(row).decode("ascii") for row in self.unwrapped.desc)
        self.grid = grid_view(rows, LEGEND)
        self.transitions = self.grid.transitions[self.config.is_slippery]

    def gym_kwargs(self) -> dict[str, Any]:
        cfg = self.config
        kwargs: dict[str, Any] = {"is_slippery": cfg.is_slippery}
        if cfg.is_slippery:
            kwargs["success_rate"] = cfg.success_rate
        if isinstance(cfg, FrozenLakeConfig):
            kwargs["map_name"] = cfg.map_name
        return kwargs

    def rules(self) -> list[str]:
        size = len(self.unwrapped.desc)
        lines = [
            f"You are playing FrozenLake (Gymnasium {self.gym_id}) on a {size}x{size} grid. "
            "Row 0 is the top row, col 0 the left column.",
            "Each turn, move one cell left, down, right or up. A move off the grid keeps you "
            "in place.",
            "Reaching the goal G ends the episode with reward 1 (success); falling into a hole "
            "H ends it with reward 0. Every other move earns 0.",
        ]
        if self.config.is_slippery:
            rate = self.config.success_rate
            lines.append(
                f"The ice is slippery: you move the way you chose with probability {rate:.3g}; "
                "otherwise you slide to one of the two perpendicular directions."
            )
        lines.append(f"The episode is cut off after {self.steps_limit} moves.")
        return lines

    def view(self, state: Any) -> str:
        return self.grid.view(state)

    def describe(
        self, action: int, before: Any, state: Any, reward: float, terminated: bool
    ) -> Transition:
        text = move_event(ACTIONS, self.grid, action, before, state, self.config.is_slippery)
        moved = {"moved": 0.0 if before == state else 1.0}
        letter = self.grid.letter(state)
        if terminated and letter == "G":
            return "goal", True, text + " You reached the goal. The episode is over.", moved
        if terminated and letter == "H":
            return "hole", False, text + " You fell into a hole. The episode is over.", moved
        return "ok", False, text, moved

    def state_info(self, state: Any) -> dict[str, Any]:
        return {"position": list(self.grid.cell(state))}

    def oracle_action(self) -> int:
        """The planner's action for this cell and the moves left (see the module docstring)."""
        return plan_for(self).action(int(self.state), self.steps_left)


class FrozenLake8x8Env(FrozenLakeEnv):
    """Gymnasium's FrozenLake8x8-v1: the same game on the 8x8 map."""

    gym_id: ClassVar[str] = "FrozenLake8x8-v1"
    gym_defaults: ClassVar[dict[str, Any]] = {"is_slippery": True, "success_rate": 1 / 3}
    gym_limit: ClassVar[int | None] = 200
    config_model: ClassVar[type[EnvConfig]] = FrozenLake8x8Config
