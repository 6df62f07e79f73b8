"""`FrozenLakeEnv`: the episode state machine behind ms-swift's gym protocol.

The map, its shortest-path distances, its move table and its grid pieces are built once in
`__init__` (and shared between envs on the same map), so `step` is a parse, a table lookup and
a few string concatenations. `step` never raises on a reply, whatever its shape.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from swift_gym import Deployment, Env, EnvConfig, InvalidConfigError, StepResult
from swift_gym.tools import ChoiceTool

from .actions import parse_action, reply_text
from .config import FrozenLakeConfig, MsSwiftFrozenLakeConfig
from .maps import ACTIONS, generate_random_map, layout
from .ms_swift_text import MsSwiftText
from .render import SwiftGymText

_INDEX = {action: k for k, action in enumerate(ACTIONS)}
SLIPS: dict[str, tuple[str, str, str]] = {
    "up": ("left", "up", "right"),
    "down": ("right", "down", "left"),
    "left": ("down", "left", "up"),
    "right": ("up", "right", "down"),
}
"""Slippery outcomes of each action (Gymnasium): intended or either perpendicular, 1/3 each."""
MOVE_TOOL = ChoiceTool(
    "move",
    "direction",
    "Move one cell on the lake: up, down, left or right.",
    choices=("up", "down", "left", "right"),
    label="frozen_lake",
)
"""The one tool of `action_format: tool`."""


class FrozenLakeEnv(Env):
    """Walk from S to G on a frozen lake without falling into a hole.

    One instance plays one map (drawn from `size`, `p`, `seed` or given as `map`); `reset`
    restarts the episode on it. With `is_slippery`, slips come from an RNG seeded by `seed`
    and re-created at every reset, so the same seed and replies replay the same episode.
    """

    config_model: ClassVar[type[EnvConfig]] = FrozenLakeConfig
    tool_use: ClassVar[str] = "opt-in"  # `move` with action_format: tool
    config: FrozenLakeConfig
    # pure computing on a tiny grid (conformance-checked); on Ray, one actor (one CPU) plays 16
    # episodes at once
    deployment = Deployment(never_blocks=True, ray_episodes=16)

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        super().__init__(env_config)
        cfg = self.config
        try:
            rows = cfg.map_rows or generate_random_map(cfg.size, cfg.p, cfg.seed)
        except InvalidConfigError as error:  # name the env as the core's own config errors do
            name = self.env_config.get("name")
            label = name if isinstance(name, str) else type(self).__name__
            raise InvalidConfigError(label, error.problems) from None
        self.map: tuple[str, ...] = rows
        self.layout = layout(rows)
        self._text = (
            MsSwiftText(rows)
            if cfg.text_style == "ms_swift"
            else SwiftGymText(
                rows,
                cfg.action_parsing,
                cfg.goal_reward,
                cfg.is_slippery,
                cfg.max_steps,
                cfg.action_format,
            )
        )
        self.system_prompt = self._text.system_prompt
        self._size = self.layout.size
        self._mode = cfg.action_parsing
        self._max_steps = cfg.max_steps
        self._rewards = (cfg.goal_reward, cfg.hole_reward, cfg.step_reward)
        self._invalid_reward = cfg.invalid_action_reward
        self._distance_reward = cfg.distance_reward
        self._tool = MOVE_TOOL if cfg.action_format == "tool" else None
        self._start_episode()

    def _start_episode(self) -> None:
        self._cell = self.layout.start
        self._steps = 0
        self._done = False
        self._won = False
        self._rng: random.Random | None = None
        if self.config.is_slippery:
            seed = self.config.seed
            self._rng = random.Random(
                f"swift-gym-frozen-lake/slippery/{seed}" if seed is not None else None
            )

    @property
    def position(self) -> tuple[int, int]:
        """The player's (row, col)."""
        r, c = divmod(self._cell, self._size)
        return (r, c)

    @property
    def done(self) -> bool:
        """Whether the current episode is over."""
        return self._done

    @property
    def optimal_steps(self) -> int:
        """Length of a shortest path from S to G on this map."""
        return self.layout.optimal_steps

    def max_turns_hint(self) -> int:
        """`max_steps` when set (the env ends the episode there); else ms-swift's recipe's 10
        turns on a 4x4 map, scaled with the side (20 on 8x8), and never below the shortest
        path, so `swift-gym eval` gives the oracle room on any map."""
        if self._max_steps is not None:
            return self._max_steps
        return max(10 * self._size // 4, self.layout.optimal_steps)

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        """Restart the episode on this env's map. `request` (ms-swift's row) is not used."""
        self._start_episode()
        r, c = self.position
        info = {
            "status": "reset",
            "position": [r, c],
            "step": 0,
            "map": list(self.map),
            "optimal_steps": self.layout.optimal_steps,
            "seed": self.config.seed,
            "size": self._size,
        }
        return self._text.reset(self._cell), info, self.system_prompt

    def tools(self) -> Any:
        """`move` with `action_format: tool`; no tools (a text env) with `tag`."""
        return self._tool.tools if self._tool is not None else []

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        """Apply the action in `messages[-1]`; see the package README for statuses and rewards.

        With `action_format: tool`, a `StepResult`: the valid call's result holds the step's
        text; an invalid reply gets an error result per call and the text as the observation.
        """
        if self._tool is not None:
            return self._tool_step(messages)
        if self._done:
            observation = self._text.over(self._cell)
            return observation, 0.0, True, self._info("episode_over", None, None, False)
        self._steps += 1
        text = reply_text(messages)
        return self._apply(parse_action(text, self._mode), text)

    def _tool_step(self, messages: Any) -> StepResult:
        tool = self._tool
        assert tool is not None
        if self._done:
            observation = self._text.over(self._cell)
            results = tool.refuse(messages, "the episode is over; no more moves are taken.")
            info = self._info("episode_over", None, None, False)
            return StepResult(observation, 0.0, True, info, results)
        self._steps += 1
        choice = tool.read(messages)
        observation, reward, done, info = self._apply(choice.value, "", choice.reason or None)
        if choice.call is not None:
            return StepResult("", reward, done, info, choice.answer(observation))
        return StepResult(observation, reward, done, info, choice.answer(""))

    def _apply(
        self, action: str | None, text: str, refused: str | None = None
    ) -> tuple[str, float, bool, dict[str, Any]]:
        """One counted step with `action` (None: invalid; `refused` says why in tool mode)."""
        if action is None:
            status, reward, actual, moved = "invalid_action", self._invalid_reward, None, False
        else:
            actual = action if self._rng is None else SLIPS[action][self._rng.randrange(3)]
            before = self._cell
            self._cell = cell = self.layout.moves[before][_INDEX[actual]]
            moved = cell != before
            letter = self.layout.cells[cell]
            if letter == "G":
                status, reward = "goal", self._rewards[0]
                self._done = self._won = True
            elif letter == "H":
                status, reward = "hole", self._rewards[1]
                self._done = True
            else:
                status, reward = "ok", self._rewards[2]
            if letter != "H" and self._distance_reward:
                # every cell the player can stand on is in S's part of the map, so G's: no -1
                nearer = self.layout.dist[before] - self.layout.dist[cell]
                reward += self._distance_reward * nearer
        limit = not self._done and self._max_steps is not None and self._steps >= self._max_steps
        if refused is None:
            observation = self._text.step(
                status, action, actual, moved, self._cell, self._steps, text, limit
            )
        else:
            observation = self._text.step(
                status, action, actual, moved, self._cell, self._steps, text, limit, refused
            )
        if limit:
            status = "max_steps"
            self._done = True
        return observation, reward, self._done, self._info(status, action, actual, moved)

    def _info(
        self, status: str, action: str | None, actual: str | None, moved: bool
    ) -> dict[str, Any]:
        r, c = divmod(self._cell, self._size)
        return {
            "status": status,
            "action": action,
            "parsed_action": action,
            "seed": self.config.seed,
            "actual_action": actual,
            "position": [r, c],
            "step": self._steps,
            "optimal_steps": self.layout.optimal_steps,
            "slipped": actual != action,
            "metrics": {
                "success": 1.0 if self._won else 0.0,
                "valid_action": 0.0 if action is None else 1.0,
                "moved": 1.0 if moved else 0.0,
            },
        }

    def oracle_action(self) -> str:
        """The next action on a shortest path from the current cell (ties in `ACTIONS` order).

        Under `is_slippery` this is the deterministic-optimal move, not the slip-aware one.
        Raises RuntimeError once the episode is over.
        """
        action = None if self._done else self.layout.best_action(self._cell)
        if action is None:
            raise RuntimeError("the episode is over: call reset() before asking for an action")
        return action

    def oracle_reply(self) -> Any:
        """`oracle_action()` as the model should give it: `<action>up</action>`, or with
        `action_format: tool` an assistant message calling `move`."""
        if self._tool is not None:
            return self._tool.message(self.oracle_action())
        return f"<action>{self.oracle_action()}</action>"

    def sample_replies(self) -> Any:
        """With `action_format: tool`, calls of `move` (each direction, and invalid ones) and
        text replies; with `tag`, none (the random policy's generic replies then)."""
        return self._tool.samples() if self._tool is not None else ()


class MsSwiftFrozenLakeEnv(FrozenLakeEnv):
    """FrozenLake as ms-swift's example plugin plays it: a drop-in, rows left as they are.

    `--gym_env frozen_lake_ms_swift` plays the example's `{"seed": N}` rows with its words and
    its reading of replies; every field of `frozen_lake` can still be set per row.
    """

    config_model: ClassVar[type[EnvConfig]] = MsSwiftFrozenLakeConfig
    tool_use: ClassVar[str] = "opt-in"  # its own body: listing reads no base class
