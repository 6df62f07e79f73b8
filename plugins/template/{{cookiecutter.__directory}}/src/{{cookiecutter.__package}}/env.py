"""`{{ cookiecutter.__class }}Env`: guess the secret number; each wrong guess is told higher or lower.

This is the example game of the swift-gym template: replace the rules, keep the shape. `reset`
starts an episode, `step` reads the model's newest reply and never raises on it, randomness
comes from the env's own seeded RNG, and `info` holds a `status` and numeric `metrics`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from swift_gym import Env, EnvConfig, reply_text

from .config import {{ cookiecutter.__class }}Config

_OPEN = r"<\s{0,8}answer\s{0,8}>"
_CLOSE = r"<\s{0,8}/\s{0,8}answer\s{0,8}>"
_ANSWER = re.compile(_OPEN + r"\s{0,8}([+-]?\d{1,9})\s{0,8}" + _CLOSE, re.IGNORECASE)
"""An <answer>NUMBER</answer> tag; bounded repeats keep parsing linear in the reply's length."""


def parse_guess(text: str) -> int | None:
    """The number in the first `<answer>...</answer>` tag, or None when there is none."""
    match = _ANSWER.search(text)
    return int(match.group(1)) if match else None


class {{ cookiecutter.__class }}Env(Env):
    """Find a secret whole number in `low..high`; the env answers higher, lower or correct."""

    config_model: ClassVar[type[EnvConfig]] = {{ cookiecutter.__class }}Config
    tool_use: ClassVar[str] = "no"  # a text env ("opt-in" or "always" once it offers tools)
    config: {{ cookiecutter.__class }}Config

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        super().__init__(env_config)  # validates env_config into self.config
        cfg = self.config
        self.system_prompt = (
            f"I am thinking of a whole number from {cfg.low} to {cfg.high}. Find it in at most "
            f"{cfg.max_guesses} guesses; after each wrong guess I say whether the number is "
            "higher or lower. Answer with exactly one tag: <answer>NUMBER</answer>."
        )
        self._new_game()

    def _new_game(self) -> None:
        cfg = self.config
        # The env's own RNG: the same seed gives the same number, and the global `random`
        # state (which other code relies on) is never touched. seed=None draws a fresh one.
        self._rng = random.Random(cfg.seed)
        self._secret = self._rng.randint(cfg.low, cfg.high)
        self._low, self._high = cfg.low, cfg.high  # what the feedback so far leaves possible
        self._guesses = 0
        self._done = False
        self._won = False

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        """Start a new game: (observation, info, system prompt). `request` is not used."""
        self._new_game()
        cfg = self.config
        observation = f"New game: the number is between {cfg.low} and {cfg.high}. Your guess?"
        info = {"status": "reset", "low": cfg.low, "high": cfg.high, "seed": cfg.seed}
        return observation, info, self.system_prompt

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        """Judge the guess in the newest reply: (observation, reward, done, info)."""
        cfg = self.config
        if self._done:
            return "The game is over. Start a new one.", 0.0, True, self._info("game_over", None)
        self._guesses += 1
        guess = parse_guess(reply_text(messages))
        reward = 0.0
        if guess is None:
            status, reward = "invalid", cfg.invalid_reward
            observation = "No valid answer found. Reply with exactly one <answer>NUMBER</answer>."
        elif guess == self._secret:
            status, reward = "correct", cfg.win_reward
            self._done = self._won = True
            observation = f"Correct: the number is {guess}."
        elif guess < self._secret:
            status, self._low = "higher", max(self._low, guess + 1)
            observation = f"{guess} is too low: the number is higher."
        else:
            status, self._high = "lower", min(self._high, guess - 1)
            observation = f"{guess} is too high: the number is lower."
        if not self._done and self._guesses >= cfg.max_guesses:
            status, self._done = "out_of_guesses", True
            observation += f" No guesses left: the number was {self._secret}."
        return observation, reward, self._done, self._info(status, guess)

    def _info(self, status: str, guess: int | None) -> dict[str, Any]:
        return {
            "status": status,
            "guess": guess,
            "guesses": self._guesses,
            # `valid_action` is the metric swift-gym eval reads for its invalid-action rate
            "metrics": {
                "success": 1.0 if self._won else 0.0,
                "valid_action": 0.0 if guess is None else 1.0,
            },
        }

    def max_turns_hint(self) -> int:
        """The most replies an episode takes: `swift-gym eval`'s default turn limit."""
        return self.config.max_guesses

    def sample_replies(self) -> tuple[str, ...]:
        """Nine guesses spread over `low..high`, ends included: `swift-gym eval --policy
        random` draws from them, so its baseline speaks the env's answer format."""
        low, high = self.config.low, self.config.high
        guesses = sorted({low + (high - low) * k // 8 for k in range(9)})
        return tuple(f"<answer>{n}</answer>" for n in guesses)

    def oracle_reply(self) -> str:
        """The best next reply, halving what is still possible (for evaluation and tests)."""
        if self._done:
            raise RuntimeError("the game is over: call reset() first")
        return f"<answer>{(self._low + self._high) // 2}</answer>"
