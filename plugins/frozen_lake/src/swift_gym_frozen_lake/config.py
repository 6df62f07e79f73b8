"""`FrozenLakeConfig`: every knob of the env, bounded, documented and checked up front.

A config comes from a dataset row, so a bad map or an out-of-range reward must fail when the
env is built, naming the field, not halfway through a training run.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import Field, ValidationInfo, field_serializer, field_validator, model_validator

from swift_gym import EnvConfig

from .actions import ActionParsing
from .maps import MAX_SIZE, MIN_SIZE, Map, parse_map, validate_map

REWARD_BOUND = 1e6
MAX_STEPS_LIMIT = 10_000
_MAP_TEXT_LIMIT = 2 * MAX_SIZE * (MAX_SIZE + 1)
"""Room for a 64x64 map written with a space between letters."""

ActionFormat = Literal["tag", "tool"]
TextStyle = Literal["swift_gym", "ms_swift"]
TEXT_STYLES: tuple[str, ...] = ("swift_gym", "ms_swift")
_NO_MS_SWIFT_WORDS = ("is_slippery", "max_steps")
"""Fields whose effect the ms-swift example's words cannot tell the model."""

_MapText = Annotated[str, Field(max_length=_MAP_TEXT_LIMIT)]
_MapRows = Annotated[
    list[Annotated[str, Field(max_length=2 * MAX_SIZE)]],
    Field(min_length=MIN_SIZE, max_length=MAX_SIZE),
]


def _reward(default: float, what: str) -> Any:
    return Field(default, ge=-REWARD_BOUND, le=REWARD_BOUND, description=what)


class FrozenLakeConfig(EnvConfig):
    """Config of `FrozenLakeEnv`. Without `map`, the lake is drawn from (`size`, `p`, `seed`)."""

    map: _MapText | _MapRows | None = Field(
        None,
        description=(
            "Explicit map instead of a random one: rows of S (start), F (frozen), H (hole), "
            "G (goal), as one string with rows separated by '/' or newlines, or a list of row "
            "strings. Square, one S, one G, and G reachable from S. Sets size."
        ),
    )
    size: int = Field(
        4,
        ge=MIN_SIZE,
        le=MAX_SIZE,
        description="Side of the random square map (ignored in favour of map's size if given).",
    )
    p: float = Field(
        0.8,
        gt=0.0,
        le=1.0,
        description="Probability that a cell of a random map is frozen (F) rather than a hole.",
    )
    is_slippery: bool = Field(
        False,
        description=(
            "Gymnasium's slippery ice: the intended move happens with probability 1/3, each "
            "perpendicular move with 1/3; drawn from the episode's own seeded RNG."
        ),
    )
    max_steps: int | None = Field(
        None,
        ge=1,
        le=MAX_STEPS_LIMIT,
        description=(
            "End the episode (status max_steps) after this many steps, invalid ones included. "
            "None: no limit inside the env."
        ),
    )
    goal_reward: float = _reward(1.0, "Reward of the step that reaches G.")
    hole_reward: float = _reward(0.0, "Reward of the step that falls into a hole.")
    step_reward: float = _reward(0.0, "Reward of any other valid step.")
    distance_reward: float = _reward(
        0.0,
        "Shaping, added to a valid step that stays on the ice or reaches G: this times how much "
        "nearer to G the step brought the player (shortest path around the holes; a step away "
        "costs as much). An episode earns at most this times the start's distance from it, as "
        "any episode that reaches G does, so the goal still pays best. 0: none.",
    )
    invalid_action_reward: float = _reward(
        0.0, "Reward of a step whose reply has no valid action (the episode goes on)."
    )
    action_parsing: ActionParsing = Field(
        "first_tag",
        description=(
            "How the reply's action is read. first_tag: the first <action>...</action> tag "
            "decides; last_tag: the last one; single_tag: exactly one tag required; exact: the "
            "reply must be one tag and nothing else (whitespace around it aside); upstream: "
            "the first tag, else the last bare word up/down/left/right (ms-swift example)."
        ),
    )
    action_format: ActionFormat = Field(
        "tag",
        description=(
            "How the model gives its move. tag: an <action>...</action> tag in its text, read "
            "by action_parsing; tool: a call of the function move with one direction (the "
            "episode offers it as a tool; a reply without exactly one valid call is invalid)."
        ),
    )

    text_style: TextStyle = Field(
        "swift_gym",
        description=(
            "The words of the system prompt and observations. swift_gym: swift-gym's; ms_swift: "
            "byte for byte those of ms-swift's example plugin (with action_parsing upstream, a "
            "drop-in for it; is_slippery and max_steps have no words there, so are refused)."
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _size_from_map(cls, data: Any) -> Any:
        """A map without an explicit size sets size, so `config.size` is always the map's."""
        if isinstance(data, dict) and data.get("map") is not None and "size" not in data:
            raw = data["map"]
            if isinstance(raw, str) and len(raw) > _MAP_TEXT_LIMIT:
                return data  # too long: the map's own validator reports it without parsing
            try:
                rows = parse_map(raw)
            except (ValueError, TypeError):
                return data  # the map's own validator reports it
            if MIN_SIZE <= len(rows) <= MAX_SIZE:
                return {**data, "size": len(rows)}
        return data

    @field_validator("map", mode="wrap")
    @classmethod
    def _check_map(cls, value: Any, handler: Any) -> Map | None:
        """Parse and validate the map; the result is stored as a tuple of rows."""
        if value is None:
            return None
        if isinstance(value, str) and len(value) > _MAP_TEXT_LIMIT:
            raise ValueError(
                f"map text is too long ({len(value)} chars, at most {_MAP_TEXT_LIMIT})"
            )
        if isinstance(value, list):
            if len(value) > MAX_SIZE:
                raise ValueError(f"map must have {MIN_SIZE} to {MAX_SIZE} rows, got {len(value)}")
            if any(isinstance(row, str) and len(row) > 2 * MAX_SIZE for row in value):
                raise ValueError(f"map rows must be at most {MAX_SIZE} cells long")
        return validate_map(parse_map(value))

    @field_validator("size")
    @classmethod
    def _size_matches_map(cls, size: int, info: ValidationInfo) -> int:
        """Runs only for an explicit size (defaults are not validated), after `map`."""
        rows = info.data.get("map")
        if rows is not None and len(rows) != size:
            raise ValueError(
                f"size {size} does not match the {len(rows)}x{len(rows)} map; "
                "drop size or make them agree"
            )
        return size

    @field_validator("action_format")
    @classmethod
    def _tools_parse_no_tags(cls, action_format: str, info: ValidationInfo) -> str:
        """Runs only for an explicit format: action_parsing reads tags, which tool mode has not."""
        if action_format == "tool" and info.data.get("action_parsing", "first_tag") != "first_tag":
            raise ValueError(
                "action_parsing reads <action> tags, and action_format 'tool' reads a call of "
                "move instead; drop action_parsing or use action_format 'tag'"
            )
        return action_format

    @field_validator("text_style")
    @classmethod
    def _style_can_say_it(cls, style: str, info: ValidationInfo) -> str:
        """Runs only for an explicit style, after every field it depends on."""
        if style == "ms_swift":
            if info.data.get("action_format") == "tool":
                raise ValueError(
                    "text_style 'ms_swift' tells the model to write tags, as the ms-swift "
                    "example does; drop action_format 'tool' or use text_style 'swift_gym'"
                )
            for field in _NO_MS_SWIFT_WORDS:
                if info.data.get(field) not in (None, False):
                    raise ValueError(
                        f"text_style 'ms_swift' uses the ms-swift example's words, which have "
                        f"none for {field}; drop {field} or use text_style 'swift_gym'"
                    )
        return style

    @property
    def map_rows(self) -> Map | None:
        """`map` as validated: a tuple of row strings (the field's type also names its inputs)."""
        return cast("Map | None", self.map)

    @field_serializer("map")
    def _dump_map(self, rows: Map | None) -> list[str] | None:
        return None if rows is None else list(rows)


class MsSwiftFrozenLakeConfig(FrozenLakeConfig):
    """Config of `frozen_lake_ms_swift`: FrozenLake with the ms-swift example plugin's defaults.

    The example's datasets carry only `seed` (and maybe `size`, `p`) in each row, so the two
    fields that make swift-gym speak and read as the plugin are defaults here, not row keys.
    """

    action_parsing: ActionParsing = Field(
        "upstream",
        description="As in frozen_lake; the default here is the ms-swift example's reading.",
    )
    text_style: TextStyle = Field(
        "ms_swift",
        validate_default=True,  # the default style still refuses is_slippery and max_steps
        description="As in frozen_lake; the default here is the ms-swift example's words.",
    )
