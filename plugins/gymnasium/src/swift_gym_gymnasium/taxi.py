"""`gymnasium.Taxi-v4`: pick the passenger up at one stop and drop them off at another.

The view is Gymnasium's map in plain ASCII with `T` for the taxi, and a line each for the
passenger and the destination: the "ansi" render tells those only by colour. Rewards are
Gymnasium's: -1 a move, +20 for the delivery (which ends the episode), -10 for a pickup or
dropoff where none is possible; a time limit of 200 moves. The oracle is the planner's: dry
roads give the shortest delivery, which always succeeds (with a fickle passenger too: it plans
again from each state); on rainy roads the policy with the best expected return.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_validator

from swift_gym import EnvConfig

from .base import TabularEnv, Transition
from .config import GymnasiumConfig, limit_field, needs, probability_field, reward_field
from .planner import plan_for

ACTIONS = ("south", "north", "east", "west", "pickup", "dropoff")
"""In Gymnasium's order: action 0 is south (down on the map)."""
STOPS = ("R", "G", "Y", "B")
"""Gymnasium's four stops, in its index order: locations (0,0), (0,4), (4,0), (4,3)."""
DELTAS = {0: (1, 0), 1: (-1, 0), 2: (0, 1), 3: (0, -1)}
MAP = (
    "+---------+",
    "|R: | : :G|",
    "| : | : : |",
    "| : : : : |",
    "| | : | : |",
    "|Y| : |B: |",
    "+---------+",
)
LEGEND = (
    "Legend: T = taxi; R, G, Y, B = the four stops; | = a wall (no driving east or west "
    "through it); : = open road. North is up."
)


class TaxiConfig(GymnasiumConfig):
    """Config of `gymnasium.Taxi-v4`."""

    is_rainy: bool = Field(
        False, description="Rainy roads: a move may skid to either side (Gymnasium's is_rainy)."
    )
    rainy_probability: float = probability_field(
        0.8, "With is_rainy: probability that a move goes the intended way."
    )
    fickle_passenger: bool = Field(
        False,
        description="The passenger may change destination once, after the first move with them.",
    )
    fickle_probability: float = probability_field(
        0.3, "With fickle_passenger: probability that the passenger changes destination."
    )
    invalid_action_reward: float = reward_field(
        -1.0,
        "Reward of a reply without a valid action (the cost of a move, so that stalling never "
        "pays better than driving). Gymnasium is not stepped and the episode goes on.",
    )
    max_episode_steps: int = limit_field(
        200, "Gymnasium's time limit (TimeLimit): the episode is cut off after this many moves."
    )

    @model_validator(mode="after")
    def _weather_fields(self) -> TaxiConfig:
        needs(self, "rainy_probability", "is_rainy")
        needs(self, "fickle_probability", "fickle_passenger")
        return self


def _stop_at(row: int, col: int) -> str | None:
    return {(0, 0): "R", (0, 4): "G", (4, 0): "Y", (4, 3): "B"}.get((row, col))


def _status(action: int, reward: float, terminated: bool) -> str:
    if terminated:
        return "delivered"
    if action == 4:
        return "picked_up" if reward > -10 else "illegal_pickup"
    if action == 5:
        return "dropped_off" if reward > -10 else "illegal_dropoff"
    return "ok"


_VIEWS: dict[int, str] = {}
_TRANSITIONS: dict[tuple[Any, ...], Transition] = {}
"""Taxi's described transitions: its map is fixed, so every env shares them."""


def view(state: int, decode: Any) -> str:
    """The map with the taxi, then where the passenger and the destination are."""
    text = _VIEWS.get(state)
    if text is None:
        row, col, passenger, destination = decode(state)
        lines = list(MAP)
        line = lines[1 + row]
        lines[1 + row] = line[: 1 + 2 * col] + "T" + line[2 + 2 * col :]
        here = _stop_at(row, col)
        where = f"row {row}, col {col}" + (f", at stop {here}" if here else "")
        rider = "in the taxi" if passenger == 4 else f"waiting at stop {STOPS[passenger]}"
        text = _VIEWS[state] = (
            "\n".join(lines)
            + f"\n\n{LEGEND}\nThe taxi is at {where}.\nPassenger: {rider}.\n"
            + f"Destination: stop {STOPS[destination]}."
        )
    return text


class TaxiEnv(TabularEnv):
    """Gymnasium's Taxi: drive to the passenger, pick them up, drop them at the destination."""

    gym_id: ClassVar[str] = "Taxi-v4"
    gym_defaults: ClassVar[dict[str, Any]] = {
        "is_rainy": False,
        "fickle_passenger": False,
        "rainy_probability": 0.8,
        "fickle_probability": 0.3,
    }
    gym_limit: ClassVar[int | None] = 200
    actions: ClassVar[tuple[str, ...]] = ACTIONS
    tool: ClassVar[tuple[str, str, str]] = (
        "act",
        "action",
        "Drive the taxi one cell, or pick up or drop off the passenger.",
    )
    config_model: ClassVar[type[EnvConfig]] = TaxiConfig
    config: TaxiConfig
    transitions = _TRANSITIONS

    def gym_kwargs(self) -> dict[str, Any]:
        cfg = self.config
        kwargs: dict[str, Any] = {
            "is_rainy": cfg.is_rainy,
            "fickle_passenger": cfg.fickle_passenger,
        }
        if cfg.is_rainy:
            kwargs["rainy_probability"] = cfg.rainy_probability
        if cfg.fickle_passenger:
            kwargs["fickle_probability"] = cfg.fickle_probability
        return kwargs

    def rules(self) -> list[str]:
        lines = [
            "You are driving a taxi (Gymnasium Taxi-v4) on a 5x5 map. Row 0 is the top "
            "(north), col 0 the left (west).",
            "Each turn, drive one cell south, north, east or west, or pickup or dropoff the "
            "passenger. Walls and the edge stop a move (you stay in place).",
            "Every action earns -1. Dropping the passenger off at the destination earns +20 "
            "and ends the episode (success). A pickup where the passenger is not, or a dropoff "
            "with no passenger or away from a stop, earns -10. Dropped off at another stop, "
            "the passenger waits there.",
        ]
        if self.config.is_rainy:
            lines.append(
                f"It is raining: a move goes the intended way with probability "
                f"{self.config.rainy_probability:.3g}, otherwise it skids to one side."
            )
        if self.config.fickle_passenger:
            lines.append(
                "The passenger is fickle: after your first move with them aboard, they may "
                "change their destination."
            )
        lines.append(f"The episode is cut off after {self.steps_limit} actions.")
        return lines

    def view(self, state: Any) -> str:
        return view(int(state), self.unwrapped.decode)

    def describe(
        self, action: int, before: Any, state: Any, reward: float, terminated: bool
    ) -> Transition:
        status = _status(action, reward, terminated)
        event = self._event(status, action, before, state)
        moved = {"moved": 0.0 if int(before) // 20 == int(state) // 20 else 1.0}
        return status, status == "delivered", event, moved

    def _event(self, status: str, action: int, before: Any, state: Any) -> str:
        r0, c0, _, dest0 = self.unwrapped.decode(int(before))
        r1, c1, passenger, dest1 = self.unwrapped.decode(int(state))
        if status == "delivered":
            text = "You dropped the passenger off at the destination (+20). The episode is over."
        elif status == "picked_up":
            text = "You picked the passenger up."
        elif status == "illegal_pickup":
            text = "Illegal pickup: the passenger is not waiting here (-10)."
        elif status == "dropped_off":
            text = (
                f"You dropped the passenger off at stop {STOPS[passenger]}, which is not the "
                "destination; they wait there."
            )
        elif status == "illegal_dropoff":
            text = "Illegal dropoff: no passenger in the taxi, or not at a stop (-10)."
        else:
            chosen, moved = ACTIONS[action], (r1 - r0, c1 - c0)
            if moved == DELTAS[action]:
                text = f"You drove {chosen}."
            elif moved == (0, 0):
                text = f"You tried to drive {chosen}, but a wall or the edge stops you."
            else:
                skid = next((ACTIONS[k] for k, d in DELTAS.items() if d == moved), "aside")
                text = f"You tried to drive {chosen}, but skidded {skid}."
        if dest1 != dest0:
            text += (
                f" The passenger changed their mind: the destination is now stop {STOPS[dest1]}."
            )
        return text

    def state_info(self, state: Any) -> dict[str, Any]:
        row, col, passenger, destination = self.unwrapped.decode(int(state))
        return {
            "position": [int(row), int(col)],
            "passenger": "taxi" if passenger == 4 else STOPS[passenger],
            "destination": STOPS[destination],
        }

    def oracle_action(self) -> int:
        """The planner's action for this state and the moves left (see the module docstring)."""
        return plan_for(self).action(int(self.state), self.steps_left)
