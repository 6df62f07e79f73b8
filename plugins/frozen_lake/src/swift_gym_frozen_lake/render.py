"""What the model reads with `text_style: swift_gym`: the system prompt and each observation.

Plain ASCII: no colour codes and no non-ASCII symbols (peers use both): the text must tokenize
the same everywhere and read the same in a log. The grid text is built once per map; rendering
a step places `P` in it with two slices and a concatenation. `SwiftGymText` and
`ms_swift_text.MsSwiftText` are the two styles the env speaks through.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .actions import ANSWER_FORMAT, ActionParsing, explain_invalid
from .maps import Map


@lru_cache(maxsize=64)
def system_prompt(
    goal_reward: float = 1.0,
    is_slippery: bool = False,
    max_steps: int | None = None,
    action_format: str = "tag",
) -> str:
    """The rules and the answer format; `SYSTEM_PROMPT` is the default config's."""
    lines = [
        "You are playing FrozenLake on a square grid. Row 0 is the top row, col 0 the left column.",
        "Cells: S = start, F = frozen ice (safe), H = hole, G = goal, P = your position.",
        "Each turn, move one cell up, down, left or right.",
        "A move that would leave the grid keeps you where you are.",
        "Falling into a hole ends the episode with no success.",
        f"Reaching the goal G ends the episode with reward {goal_reward:g}.",
    ]
    if is_slippery:
        lines.append(
            "The ice is slippery: you go the way you chose only 1/3 of the time; otherwise you "
            "slide to one of the two perpendicular directions."
        )
    if max_steps is not None:
        lines.append(f"You have at most {max_steps} moves.")
    if action_format == "tool":
        lines.append(
            "Think briefly if you like, then call the function move once, with direction up, "
            "down, left or right. A reply without exactly one such call is no move."
        )
    else:
        lines.append(
            "Think briefly if you like, then answer with exactly one action tag: "
            + ANSWER_FORMAT
            + "."
        )
    return "\n".join(lines)


SYSTEM_PROMPT = system_prompt()


@dataclass(frozen=True)
class Renderer:
    """Grid text for one map, with `P` placed at any cell by two slices and a concatenation."""

    size: int
    text: str
    """The rows, letters separated by spaces, joined by newlines. Each row with its separator
    is `2 * size` characters, so the letter of flat cell i is at `text[2 * i]`."""

    def grid(self, cell: int, mark: str = "P") -> str:
        """The map, letters separated by spaces, with `mark` at flat cell `cell`."""
        i = 2 * cell
        return self.text[:i] + mark + self.text[i + 1 :]

    def observation(self, event: str, cell: int) -> str:
        """`event`, the grid and the position line."""
        r, c = divmod(cell, self.size)
        return f"{event}\n\n{self.grid(cell)}\n\nYou are at row {r}, col {c}."


@lru_cache(maxsize=256)
def renderer(rows: Map) -> Renderer:
    """The `Renderer` of a map (cached: many envs of a run share a few maps)."""
    return Renderer(len(rows), "\n".join(" ".join(row) for row in rows))


START_EVENT = "A new episode starts. Reach G without falling into a hole."
MOVED = {d: f"You moved {d}." for d in ("up", "down", "left", "right")}
BLOCKED = {d: f"You tried to move {d}, but the edge stops you; you stay in place." for d in MOVED}


def move_event(action: str, actual: str, moved: bool) -> str:
    """One sentence on what a valid move did (slips included)."""
    if actual == action:
        return MOVED[action] if moved else BLOCKED[action]
    if moved:
        return f"You tried to move {action}, but slipped and moved {actual}."
    return f"You tried to move {action}, but slipped {actual} into the edge; you stay in place."


GOAL_EVENT = " You reached the goal. The episode is over."
HOLE_EVENT = " You fell into a hole. The episode is over."
OVER_EVENT = "The episode is over; no more moves are taken. Start a new episode."


TOOL_HINT = "Call move once, with direction up, down, left or right."


def invalid_event(reason: str, hint: str = f"Answer with exactly one of {ANSWER_FORMAT}.") -> str:
    """The hint shown after a reply without a valid action."""
    return f"No valid action found: {reason}. {hint}"


def max_steps_event(max_steps: int) -> str:
    """Appended when the step limit ends the episode."""
    return f" The step limit of {max_steps} moves is reached. The episode is over."


class SwiftGymText:
    """swift-gym's words: an event sentence, the grid, then the position line."""

    def __init__(
        self,
        rows: Map,
        mode: ActionParsing,
        goal_reward: float = 1.0,
        is_slippery: bool = False,
        max_steps: int | None = None,
        action_format: str = "tag",
    ):
        self.system_prompt = system_prompt(goal_reward, is_slippery, max_steps, action_format)
        self._render = renderer(rows)
        self._mode = mode
        self._max_steps = max_steps

    def reset(self, cell: int) -> str:
        """The first observation of an episode."""
        return self._render.observation(START_EVENT, cell)

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
        refused: str | None = None,
    ) -> str:
        """The observation after a step that ended in `status` (ok, goal, hole, invalid_action).

        `refused`: why a tool-mode reply made no valid call (the text reply is then not read).
        """
        if refused is not None:
            event = invalid_event(refused, TOOL_HINT)
        elif action is None or actual is None:
            event = invalid_event(explain_invalid(reply, self._mode))
        else:
            event = move_event(action, actual, moved)
            if status == "goal":
                event += GOAL_EVENT
            elif status == "hole":
                event += HOLE_EVENT
        if limit_reached and self._max_steps is not None:
            event += max_steps_event(self._max_steps)
        return self._render.observation(event, cell)

    def over(self, cell: int) -> str:
        """The observation of a step taken after the episode ended."""
        return self._render.observation(OVER_EVENT, cell)
