"""The config fields every Gymnasium env shares, and helpers for each game's own.

A config comes from a dataset row, so every field is bounded and checked when the env is
built. Fields that only mean something together with another one (`success_rate` without
`is_slippery`) are refused rather than silently ignored, as Gymnasium would ignore them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from swift_gym import EnvConfig

from .actions import ActionFormat, ActionParsing

REWARD_BOUND = 1e6
MAX_EPISODE_STEPS = 1000
"""Upper bound of `max_episode_steps`: it also bounds the oracle's planning horizon."""


def reward_field(default: float, what: str) -> Any:
    return Field(default, ge=-REWARD_BOUND, le=REWARD_BOUND, description=what)


def limit_field(default: int | None, what: str) -> Any:
    return Field(default, ge=1, le=MAX_EPISODE_STEPS, description=what)


def probability_field(default: float, what: str, *, above_zero: bool = False) -> Any:
    if above_zero:
        return Field(default, gt=0.0, le=1.0, description=what)
    return Field(default, ge=0.0, le=1.0, description=what)


class GymnasiumConfig(EnvConfig):
    """Fields of every env of this package; each game's config adds its Gymnasium arguments."""

    invalid_action_reward: float = reward_field(
        0.0,
        "Reward of a reply without a valid action. Gymnasium is not stepped and the episode "
        "goes on; such replies do not count toward max_episode_steps.",
    )
    action_parsing: ActionParsing = Field(
        "first_tag",
        description=(
            "How the reply's action is read. first_tag: the first <action>...</action> tag "
            "decides; last_tag: the last one; single_tag: exactly one tag required."
        ),
    )
    action_format: ActionFormat = Field(
        "tag",
        description=(
            "How the model gives its action. tag: an <action>...</action> tag in its text, read "
            "by action_parsing; tool: one call of the env's function (move, act or play) whose "
            "one parameter is the action (the episode offers it as a tool; a reply without "
            "exactly one valid call is invalid)."
        ),
    )

    @field_validator("action_format")
    @classmethod
    def _tools_parse_no_tags(cls, action_format: str, info: ValidationInfo) -> str:
        """Runs only for an explicit format: action_parsing reads tags, which tool mode has not."""
        if action_format == "tool" and info.data.get("action_parsing", "first_tag") != "first_tag":
            raise ValueError(
                "action_parsing reads <action> tags, and action_format 'tool' reads a tool call "
                "instead; drop action_parsing or use action_format 'tag'"
            )
        return action_format


def needs(config: EnvConfig, field: str, flag: str) -> None:
    """Refuse `field` set explicitly while boolean `flag` is false (Gymnasium would ignore it)."""
    if field in config.model_fields_set and not getattr(config, flag):
        raise ValueError(f"{field} only applies when {flag} is true; set {flag} or drop {field}")
