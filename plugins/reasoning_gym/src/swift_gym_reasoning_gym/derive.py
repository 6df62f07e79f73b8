"""Each task's pydantic config model, derived from reasoning-gym's config dataclass.

Derived at first use of a task (never at listing: that would import reasoning-gym), once per
process. The model has every dataclass field under its own name, bounded (see `fields`), with
two renamed or fixed by swift-gym's rules:

- the dataclass's `seed` is `dataset_seed` (default 0, not reasoning-gym's random one): the
  env's own `seed` is the episode seed, which picks the item (see `items`);
- `size` is kept, bounded by `MAX_SIZE`: some tasks build all `size` puzzles up front.

After pydantic's checks, the model builds the dataclass and runs its `validate()`, so what
reasoning-gym rejects (by `assert`, mostly) is an `InvalidConfigError` naming the fields.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import typing
from typing import Any, ClassVar, Literal

from pydantic import (
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from swift_gym import EnvConfig, did_you_mean

from .docs import field_comments
from .fields import Translated, UnsupportedField, translate
from .ids import TASKS
from .rejections import rejection_problems

MAX_SIZE = 100_000
"""Bound of `size`: acre builds its `size` puzzles when the dataset is made (about 0.3 s per
1,000), and word_ladder refuses sizes its word graph cannot fill."""
DATASET_SEED_MAX = 2**32 - 1
"""reasoning-gym's own seeds wrap at 2**32 (`ReseedingDataset`)."""
MAX_ATTEMPTS = 20
MAX_PROMPT_CHARS = 20_000
MAX_TOOL_CALLS = 32
TOOL_NAMES = ("python",)
"""The tools a row may ask for (`python_use.py` offers them)."""

RENAMED = {"seed": "dataset_seed"}
"""Dataclass field -> model field, where swift-gym's own name wins."""

OVERRIDES: dict[tuple[str, str], tuple[Any, Any]] = {
    ("rearc", "diff_lb"): (float, 0.0),
    ("rearc", "diff_ub"): (float, 0.2),
    ("intermediate_integration", "symbols"): (tuple[str, ...], ("x",)),
}
"""(annotation, default) where a dataclass's annotation disagrees with its own default and use:
rearc's difficulty bounds are `int` with the default 0.2 (fractions, used as floats), and
intermediate_integration's `symbols: tuple = "x"` is a string that `rng.choice` draws from
(`("x",)` draws the same). Tested: the derived defaults make the same items as reasoning-gym's."""


def _system_prompt_styles() -> tuple[str, ...]:
    from reasoning_gym.utils import SYSTEM_PROMPTS

    return tuple(SYSTEM_PROMPTS)


class ReasoningGymConfig(EnvConfig):
    """Fields every reasoning-gym env shares; each task's model adds its dataclass's fields."""

    attempts: int = Field(
        1,
        ge=1,
        le=MAX_ATTEMPTS,
        description=(
            "Answers the model may give. With more than 1, a wrong answer gets feedback (its "
            "score, never the answer) and another turn; the episode ends at a score of 1.0 or "
            "when the attempts are used up."
        ),
    )
    system_prompt_style: Literal[_system_prompt_styles()] = Field(  # type: ignore[valid-type]
        "default",
        description="Which of reasoning-gym's SYSTEM_PROMPTS (reasoning_gym.utils) to use.",
    )
    system_prompt: str | None = Field(
        None,
        max_length=MAX_PROMPT_CHARS,
        description="A system prompt of your own; replaces system_prompt_style when set.",
    )
    tools: list[Literal[TOOL_NAMES]] = Field(  # type: ignore[valid-type]
        [],  # pydantic copies it for each config
        max_length=len(TOOL_NAMES),
        description=(
            'Tools the episode offers: ["python"] lets the model run Python in a sandbox '
            "(one session per episode, under the operator's limits) before it answers; the "
            "answer is still a reply without a tool call, in <answer></answer> tags."
        ),
    )
    max_tool_calls: int = Field(
        4,
        ge=1,
        le=MAX_TOOL_CALLS,
        description=(
            "With tools: the calls the model may make in an episode, refused ones included. "
            "A reply that calls a tool after that is scored as an answer."
        ),
    )

    @field_validator("tools", mode="before")
    @classmethod
    def _known_tools(cls, tools: Any) -> Any:
        """Unknown names refused with a did-you-mean (before pydantic's own Literal message)."""
        if not isinstance(tools, list):
            return tools  # pydantic says what is wrong
        for name in tools:
            if isinstance(name, str) and name not in TOOL_NAMES:
                close = did_you_mean(name, TOOL_NAMES)
                hint = f"; did you mean {close!r}?" if close else ""
                raise ValueError(
                    f"unknown tool {name[:64]!r}{hint} (the tools reasoning-gym envs offer: "
                    f"{', '.join(TOOL_NAMES)})"
                )
        if len(set(map(str, tools))) != len(tools):
            raise ValueError("each tool may be listed once")
        return tools

    task: ClassVar[str] = ""
    """The reasoning-gym task name (`create_dataset`'s first argument)."""
    dataclass_type: ClassVar[type] = object
    converters: ClassVar[dict[str, tuple[str, Any]]] = {}
    """{dataclass field: (model field, converter back to the dataclass's type)}."""

    def dataclass_config(self, dataset_seed: int | None = None) -> Any:
        """The reasoning-gym config dataclass of this config (with another seed, if given)."""
        values = {
            field: convert(getattr(self, model_field))
            for field, (model_field, convert) in self.converters.items()
        }
        if dataset_seed is not None:
            values["seed"] = dataset_seed
        return self.dataclass_type(**values)

    @model_validator(mode="after")
    def _reasoning_gym_accepts(self) -> ReasoningGymConfig:
        if not self.task:
            return self
        problems = _extra_problems(self)
        if not problems:
            try:
                config = self.dataclass_config()
                validate = getattr(config, "validate", None)
                if callable(validate):
                    validate()
            except Exception as error:  # reasoning-gym's own check: an assert, mostly
                problems = rejection_problems(error, self.task, self._field_names(), self)
        if problems:
            details = [
                InitErrorDetails(
                    type=PydanticCustomError("reasoning_gym", "{reason}", {"reason": reason}),
                    loc=tuple(field.split(".")) if field else (),
                    input=value if field else _given(self),
                )
                for field, reason, value in problems
            ]
            raise ValidationError.from_exception_data(type(self).__name__, details)
        return self

    @classmethod
    def _field_names(cls) -> dict[str, str]:
        return {field: model_field for field, (model_field, _) in cls.converters.items()}


def _given(config: ReasoningGymConfig) -> dict[str, Any]:
    """The fields a config sets, for a problem that no single field owns."""
    return {name: getattr(config, name) for name in sorted(config.model_fields_set)}


def _extra_problems(config: ReasoningGymConfig) -> list[tuple[str, str, Any]]:
    """Checks reasoning-gym makes only when a dataset is built (so: too late to name a field)."""
    if config.task != "composite":
        return []
    problems = []
    for index, spec in enumerate(getattr(config, "datasets", None) or ()):
        name = spec.name
        if name == "composite" or name not in TASKS:
            reason = "not a reasoning-gym task (composite takes the other tasks)"
            problems.append((f"datasets.{index}.name", reason, name))
    return problems


def _plain(value: Any) -> Any:
    """A dataclass default as the model holds it (JSON-like: lists, enum values, ISO text)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return [_plain(item) for item in value]
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # unresolvable names: fall back to the raw annotations
        return {field.name: field.type for field in dataclasses.fields(cls)}


@functools.cache
def nested_model(cls: type) -> Translated:
    """A nested dataclass (arc's BoardFormattingOptions) as a strict model of its own."""
    hints = _hints(cls)
    definitions: dict[str, Any] = {}
    converters: dict[str, Any] = {}
    comments = field_comments(cls)
    for field in dataclasses.fields(cls):
        default = _default(field)
        default = None if default is dataclasses.MISSING else default
        part = translate(hints[field.name], default, nested_model)
        description = comments.get(field.name) or f"{field.name} of reasoning-gym's {cls.__name__}"
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            definitions[field.name] = (part.annotation, Field(description=description))
        else:
            definitions[field.name] = (
                part.annotation,
                Field(_plain_default(part, default), description=description),
            )
        converters[field.name] = part.convert
    model = create_model(
        f"{cls.__name__}Model",
        __config__=ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False),
        **definitions,
    )
    model.__doc__ = f"reasoning-gym's {cls.__name__}, field by field."

    def convert(value: Any) -> Any:
        return cls(**{name: conv(getattr(value, name)) for name, conv in converters.items()})

    return Translated(model, convert)


def _plain_default(part: Translated, default: Any) -> Any:
    """A dataclass default as a value of the field's own type (checked against its bounds)."""
    if dataclasses.is_dataclass(default) and not isinstance(default, type):
        model = part.annotation
        fields = dataclasses.fields(default)
        return model(**{field.name: _plain(getattr(default, field.name)) for field in fields})
    return TypeAdapter(part.annotation).validate_python(_plain(default))


def _model_field(
    task: str,
    field: dataclasses.Field[Any],
    annotation: Any,
    cls: type,
    comments: dict[str, str],
) -> tuple[str, Any, Any]:
    """(model field name, (annotation, Field), converter) of one dataclass field."""
    default = _default(field)
    if (task, field.name) in OVERRIDES:
        annotation, default = OVERRIDES[task, field.name]
    has_default = default is not dataclasses.MISSING
    name = RENAMED.get(field.name, field.name)
    doc = comments.get(field.name)
    if field.name == "seed":
        description = (
            "Seed of reasoning-gym's dataset (its `seed`); the episode's `seed` picks the item."
        )
        return name, (int, Field(0, ge=0, le=DATASET_SEED_MAX, description=description)), int
    if field.name == "size":
        description = (
            "reasoning-gym's dataset size: the episode seeds of one dataset build "
            f"(seed // size picks the build, seed % size the item). {doc or ''}"
        ).strip()
        start = default if isinstance(default, int) and 1 <= default <= MAX_SIZE else 500
        return name, (int, Field(start, ge=1, le=MAX_SIZE, description=description)), int
    if has_default and default is None:
        annotation = typing.Optional[annotation]  # noqa: UP045 - `datasets: list[...] = None`
    part = translate(annotation, default if has_default else None, nested_model)
    text = doc or f"{field.name} of reasoning-gym's {cls.__name__}"
    if has_default:
        shown = _plain(default)
        text = f"{text} (reasoning-gym's default: {shown!r})"[:400]
        spec = Field(_plain_default(part, default), description=text)
    else:
        spec = Field(description=text)
    return name, (part.annotation, spec), part.convert


@functools.cache
def config_model(task: str) -> type[ReasoningGymConfig]:
    """The config model of `task`, derived from its dataclass (imports reasoning-gym)."""
    if task not in TASKS:
        raise KeyError(f"{task!r} is not a reasoning-gym task of this package")
    from reasoning_gym.factory import DATASETS

    _, cls = DATASETS[task]
    hints = _hints(cls)
    comments = field_comments(cls)
    definitions: dict[str, Any] = {}
    converters: dict[str, tuple[str, Any]] = {}
    reserved = set(ReasoningGymConfig.model_fields)
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        try:
            name, definition, convert = _model_field(task, field, hints[field.name], cls, comments)
        except UnsupportedField as error:
            raise UnsupportedField(f"{task}.{field.name}: {error}") from None
        if name in reserved:
            raise UnsupportedField(f"{task}.{field.name} clashes with swift-gym's {name!r}")
        definitions[name] = definition
        converters[field.name] = (name, convert)
    model = create_model(
        "".join(part.title() for part in task.split("_")) + "Config",
        __base__=ReasoningGymConfig,
        **definitions,
    )
    model.__doc__ = (
        f"reasoning-gym's {cls.__name__} for the task {task!r}, field by field (`seed` is "
        "`dataset_seed`), plus swift-gym's attempts and system prompt."
    )
    model.task = task
    model.dataclass_type = cls
    model.converters = converters
    return model
