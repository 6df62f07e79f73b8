"""`TextArenaEnv`: one single-player TextArena game behind ms-swift's gym protocol.

The game is TextArena's unwrapped (`-raw`) env for a listed id, so what the model reads is
built here (observations.py) rather than by TextArena's history-accumulating wrapper. Each
reply goes to the game as it is (TextArena's games look for their `[move]` in the text), unless
it is too long or holds moves no game can read safely (moves.py): then it is an invalid move
and the game is not called. The game's invalid-move rule applies as TextArena defines it: the
first invalid move of a run is told and may be retried, the next one ends the game with the
game's own reward.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any, ClassVar

from swift_gym import Env, EnvConfig, StepResult
from swift_gym.replies import reply_text

from . import moves, sandbox
from .config import TextArenaConfig
from .ids import TA_IDS
from .observations import Batch, Messages, render
from .tool_moves import TOOL_MOVES

OVER = "The episode is over; no more moves are taken. Start a new episode."


class TextArenaGameError(RuntimeError):
    """The TextArena game raised, or did not answer in time: this episode cannot go on."""


def make_game(ta_id: str, kwargs: Mapping[str, Any]) -> Any:
    """`ta.make(f"{ta_id}-raw", **kwargs)` for one of `TA_IDS`, never anything else."""
    if ta_id not in TA_IDS:
        raise ValueError(f"{ta_id!r} is not one of the TextArena ids this package wraps")
    import importlib

    import textarena
    from textarena.envs.registration import ENV_REGISTRY

    raw_id = f"{ta_id}-raw"
    entry_point = ENV_REGISTRY[raw_id].entry_point
    if isinstance(entry_point, str):
        with sandbox.keep_global_random():  # the game module's first import
            importlib.import_module(entry_point.partition(":")[0])
    sandbox.install()  # before the game is built: some bind `random.random` in __init__
    return textarena.make(raw_id, **kwargs)


class TextArenaEnv(Env):
    """A TextArena game played through its own `[move]` replies.

    Subclasses (games.py, one per id) set `ta_id`, `game` and `config_model`. Every reset
    builds a new game and calls TextArena's `reset(num_players=1, seed=config.seed)` with a
    generator of the episode's own (sandbox.py), so the same seed and replies replay the same
    episode; without a seed, one is drawn from the system's entropy.
    """

    ta_id: ClassVar[str]
    game: ClassVar[str]
    config_model: ClassVar[type[EnvConfig]] = TextArenaConfig
    config: TextArenaConfig

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        super().__init__(env_config)
        self._kwargs = self.config.game_kwargs()
        self._timeout = self.config.call_timeout
        self._game: Any = None
        self._rng = random.Random()
        self._messages = Messages()
        self._started = self._done = self._broken = False
        self._turns = self._invalid = 0
        self._reward = 0.0
        self._ending: dict[str, Any] = {}
        self.system_prompt = ""
        self._move = TOOL_MOVES.get(self.game) if self.config.action_format == "tool" else None
        self._tool = (
            self._move.tool(self.config.resolved(), self.ta_id) if self._move is not None else None
        )

    # Calls into TextArena.

    async def _call(self, what: str, call: Any, *args: Any) -> Any:
        try:
            return await sandbox.run(self._rng, self._timeout, call, *args)
        except Exception as error:  # the game's own failure, whatever it is
            self._broken = True
            detail = str(error)[:300]
            raise TextArenaGameError(
                f"TextArena {self.ta_id}: {what} failed ({type(error).__name__}: {detail}); "
                "this episode cannot go on. Call reset() for a new game."
            ) from error

    def _build_and_reset(self, seed: int | None) -> tuple[Any, Any]:
        game = make_game(self.ta_id, self._kwargs)
        game.reset(num_players=1, seed=seed)
        return game, game.get_observation()

    @staticmethod
    def _play(game: Any, action: str) -> tuple[Any, Any, Any]:
        done, _ = game.step(action)
        observation = game.get_observation()
        ending = game.close() if done else None
        return bool(done), observation, ending

    # The protocol.

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        """A new game, reset with the config's seed. `request` is not used."""
        seed = self.config.seed
        self._rng = random.Random(seed)
        self._broken = True  # until the new game is up
        await sandbox.preload()
        game, (_, raw) = await self._call("reset", self._build_and_reset, seed)
        self._game, self._broken = game, False
        self._messages = Messages()
        batch = self._messages.take(raw)
        self._started, self._done = True, False
        self._turns = self._invalid = 0
        self._reward, self._ending = 0.0, {}
        rules = "\n\n".join(self._messages.prompt) or f"You are playing TextArena's {self.game}."
        if self._tool is not None and self._move is not None:
            example = self._tool.choices[0] if self._tool.choices else self._tool.bounds[0]  # type: ignore[index]
            answer = (
                f"Make each move by calling the function {self._tool.name} once, with "
                f"{self._tool.how.partition(' with ')[2]}: a call with {self._tool.parameter} "
                f"{example} is the move {self._move.move(example)}. A reply without exactly one "
                "such call is no move."
            )
        else:
            answer = (
                "Answer with your move in square brackets, as the rules above show. Only the "
                "bracketed move counts"
            )
        self.system_prompt = (
            f"{rules}\n\n{answer}; an invalid move is told and may be retried once, "
            "a second one in a row ends the game."
        )
        observation = render(self._messages, batch, self.config.observation)
        info = {"status": "reset", "turn": 0, "seed": seed, "ta_id": self.ta_id}
        return observation, info, self.system_prompt

    def tools(self) -> Any:
        """The game's one function with `action_format: tool`; none (a text env) with `tag`."""
        return self._tool.tools if self._tool is not None else []

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        """Play the newest reply; see the package README for statuses and rewards.

        With `action_format: tool`, a `StepResult`: the valid call is played as the game's move
        and its result holds what the game said; an invalid reply is refused without calling
        the game, each call answered by an error result.
        """
        if self._tool is not None:
            return await self._tool_step(messages)
        if not self._started:
            await self.reset()
        if self._broken:
            raise TextArenaGameError(
                f"TextArena {self.ta_id}: the game failed earlier in this episode; call reset()"
            )
        if self._done:
            return OVER, 0.0, True, self._info("episode_over", valid=False)
        text = reply_text(messages)
        refused = self._unreadable(text)
        if refused is not None:  # the game is not called
            return self._refuse(refused)
        return await self._play_move(text)

    async def _tool_step(self, messages: Any) -> StepResult:
        tool, move = self._tool, self._move
        assert tool is not None and move is not None
        if not self._started:
            await self.reset()
        if self._broken:
            raise TextArenaGameError(
                f"TextArena {self.ta_id}: the game failed earlier in this episode; call reset()"
            )
        if self._done:
            results = tool.refuse(messages, "the episode is over; no more moves are taken.")
            return StepResult(OVER, 0.0, True, self._info("episode_over", valid=False), results)
        choice = tool.read(messages)
        if choice.call is None:
            how = tool.how[0].upper() + tool.how[1:]
            observation, reward, done, info = self._refuse(
                f"No valid move: {choice.reason}. {how}."
            )
            return StepResult(observation, reward, done, info, choice.answer(""))
        observation, reward, done, info = await self._play_move(move.move(choice.value))
        return StepResult("", reward, done, info, choice.answer(observation))

    def _refuse(self, why: str) -> tuple[str, float, bool, dict[str, Any]]:
        """An invalid move that does not reach the game (counted; the episode goes on)."""
        self._invalid += 1
        observation = f"{why}\n\n{render(self._messages, Batch(), 'current')}"
        return observation, 0.0, False, self._info("invalid_action", valid=False)

    async def _play_move(self, text: str) -> tuple[str, float, bool, dict[str, Any]]:
        """Play `text` (a readable reply, or a tool call's move) as the game's move."""
        text = text.encode("utf-8", "replace").decode("utf-8")  # no lone surrogates
        errors_before = getattr(self._game.state, "error_count", 0)
        done, (_, raw), ending = await self._call("step", self._play, self._game, text)
        batch = self._messages.take(raw)
        state = self._game.state
        errors = getattr(state, "error_count", 0)
        game_info = state.game_info.get(0, {}) if isinstance(state.game_info, dict) else {}
        invalid = errors > errors_before or (done and bool(game_info.get("invalid_move")))
        self._turns += 1
        if invalid:
            self._invalid += 1
        reward = 0.0
        if done:
            self._done = True
            reward = self._final_reward(ending)
        observation = render(self._messages, batch, self.config.observation)
        if done:
            observation += "\n\n" + self._ending_text()
        status = "invalid_action" if invalid else ("game_over" if done else "ok")
        return observation, reward, done, self._info(status, valid=not invalid)

    def _unreadable(self, text: str) -> str | None:
        """Why no game may read `text` (too long, or moves no game can read safely: moves.py)."""
        if len(text) > self.config.max_reply_chars:
            return (
                f"Your reply has {len(text)} characters; at most {self.config.max_reply_chars} "
                "are read. Answer briefly with your move in square brackets."
            )
        return moves.problem(text)

    def _final_reward(self, ending: Any) -> float:
        """The game's reward for player 0; a value that is not a finite number counts 0."""
        rewards, game_info = ending if isinstance(ending, tuple) and len(ending) == 2 else ({}, {})
        raw = rewards.get(0) if isinstance(rewards, dict) else None
        finite = isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw)
        self._reward = float(raw) if finite else 0.0
        info = game_info.get(0, {}) if isinstance(game_info, dict) else {}
        reason = info.get("reason")
        self._ending = {
            "game_reward": self._reward,
            "reason": str(reason)[:500] if reason is not None else None,
            "ended_by_invalid_move": bool(info.get("invalid_move")),
        }
        if not finite:
            self._ending["reward_not_a_number"] = repr(raw)[:200]
        return self._reward

    def _ending_text(self) -> str:
        reason = self._ending.get("reason") or "The game is over."
        return f"{reason}\nThe game is over. Your reward: {self._reward:g}."

    def success(self) -> bool:
        """A full win: the game's final reward is at least 1 (TextArena's reward for a win)."""
        return self._done and self._reward >= 1.0

    def _info(self, status: str, *, valid: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "status": status,
            "turn": self._turns,
            "seed": self.config.seed,
            "ta_id": self.ta_id,
            "done": self._done,
            "metrics": {
                "success": 1.0 if self.success() else 0.0,
                "valid_action": 1.0 if valid else 0.0,
                "invalid_actions": float(self._invalid),
            },
        }
        if self._done:
            info.update(self._ending)
        return info

    async def close(self) -> None:
        """Drop the game (TextArena's games hold nothing to release)."""
        self._game = None
        self._started = False

    def max_turns_hint(self) -> int | None:
        """Twice the game's `max_turns` (each move may be retried once after an invalid one):
        `swift-gym eval`'s default turn limit. None for a game without one."""
        limit = self.config.resolved().get("max_turns")
        return 2 * limit if isinstance(limit, int) else None

    def sample_replies(self) -> Any:
        """Moves in the game's format for `--policy random` (games.py lists them per game);
        with `action_format: tool`, calls of the game's function, valid and not, and text."""
        if self._tool is not None:
            return tuple(self._tool.samples())
        return SAMPLE_MOVES.get(self.game, ("[1]",))


SAMPLE_MOVES: dict[str, tuple[str, ...]] = {}
"""Filled by games.py: each game's typical moves, valid and not, for the random policy."""
