"""`{{ cookiecutter.__class }}Config`: the env's `env_config`, checked before an episode starts.

A config comes from a dataset row, so every field is bounded and an unknown key is an error
(both inherited from `swift_gym.EnvConfig`, which also gives `name` and `seed`).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from swift_gym import EnvConfig

NUMBER_BOUND = 1_000_000
REWARD_BOUND = 1_000.0


class {{ cookiecutter.__class }}Config(EnvConfig):
    """Guess the secret number in `low..high` within `max_guesses` guesses."""

    low: int = Field(1, ge=-NUMBER_BOUND, le=NUMBER_BOUND, description="Smallest secret number.")
    high: int = Field(100, ge=-NUMBER_BOUND, le=NUMBER_BOUND, description="Largest secret number.")
    max_guesses: int = Field(
        10, ge=1, le=100, description="Guesses allowed before the episode ends unsolved."
    )
    win_reward: float = Field(
        1.0, ge=-REWARD_BOUND, le=REWARD_BOUND, description="Reward of the guess that is right."
    )
    invalid_reward: float = Field(
        0.0,
        ge=-REWARD_BOUND,
        le=REWARD_BOUND,
        description="Reward of a reply without a valid <answer>NUMBER</answer> (it still counts).",
    )

    @model_validator(mode="after")
    def _range_is_not_empty(self) -> {{ cookiecutter.__class }}Config:
        if self.low >= self.high:
            raise ValueError(f"low ({self.low}) must be below high ({self.high})")
        return self
