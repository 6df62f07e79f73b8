"""Every task's derived config model: exported, strict, bounded, faithful to its dataclass, and
what reasoning-gym refuses is an InvalidConfigError that names the fields to fix."""

from __future__ import annotations

import dataclasses
import datetime
import enum

import pytest
from reasoning_gym.factory import DATASETS

import swift_gym
from swift_gym.testing.config_checks import unbounded_fields
from swift_gym_reasoning_gym.derive import MAX_SIZE, OVERRIDES, config_model
from swift_gym_reasoning_gym.ids import TASKS

COMPOSITE = {"datasets": [{"name": "chain_sum", "weight": 1.0, "config": {}}]}


def defaults(task):
    return COMPOSITE if task == "composite" else {}


@pytest.mark.parametrize("task", TASKS)
def test_every_task_derives_a_strict_bounded_model(task):
    model = config_model(task)
    schema = model.model_json_schema()
    assert unbounded_fields(schema) == []
    _, cls = DATASETS[task]
    ours = {f.name for f in dataclasses.fields(cls)} - {"seed"}
    assert ours | {"dataset_seed"} <= set(model.model_fields)
    assert model.model_fields["size"].metadata  # bounded
    assert all(model.model_fields[name].description for name in model.model_fields)
    with pytest.raises(swift_gym.InvalidConfigError, match="unknown key"):
        swift_gym.make({"name": f"reasoning_gym.{task}", "colour": 1})


def plain(value):
    if isinstance(value, enum.Enum):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


@pytest.mark.parametrize("task", [t for t in TASKS if t != "composite"])
def test_the_derived_defaults_are_reasoning_gyms_own(task):
    """Field by field (but `seed`, which is 0 here, random there), and the same items."""
    _, cls = DATASETS[task]
    ours = config_model(task).model_validate({}).dataclass_config()
    theirs = cls(seed=0)
    for field in dataclasses.fields(cls):
        if (task, field.name) in OVERRIDES:
            continue
        assert plain(getattr(ours, field.name)) == plain(getattr(theirs, field.name)), field.name
        kinds = {type(getattr(ours, field.name)), type(getattr(theirs, field.name))}
        assert len(kinds) == 1 or kinds == {int, float}, field.name  # `w_rotate: float = 1`


@pytest.mark.parametrize("task", [t for t in TASKS if t != "composite"])
def test_the_derived_defaults_make_reasoning_gyms_items(task):
    import reasoning_gym

    dataset_class, _ = DATASETS[task]
    ours = dataset_class(config=config_model(task).model_validate({}).dataclass_config(5))
    theirs = reasoning_gym.create_dataset(task, seed=5)
    assert ours[2]["question"] == theirs[2]["question"]


@pytest.mark.parametrize("task", [task for task, _ in OVERRIDES])
def test_overridden_defaults_make_the_same_items(task):
    import reasoning_gym

    ours = DATASETS[task][0](config=config_model(task).model_validate({}).dataclass_config(3))
    theirs = reasoning_gym.create_dataset(task, seed=3)
    for index in (0, 1):
        assert ours[index]["question"] == theirs[index]["question"]


def invalid(name, **config):
    with pytest.raises(swift_gym.InvalidConfigError) as caught:
        swift_gym.make({"name": f"reasoning_gym.{name}", **config})
    return caught.value


def test_a_refused_combination_names_both_fields_and_the_reason():
    error = invalid("chain_sum", min_terms=5, max_terms=2)
    fields = {problem.field for problem in error.problems}
    assert fields == {"min_terms", "max_terms"}
    assert "max_terms must be >= min_terms" in str(error)
    assert "reasoning_gym.chain_sum" in str(error)


def test_an_assert_without_a_message_is_explained_by_its_condition():
    # sokoban's validate(): `assert self.min_h > 0`, no message
    error = invalid("sokoban", min_h=0)
    assert [problem.field for problem in error.problems] == ["min_h"]
    assert "requires self.min_h > 0" in error.problems[0].reason


def test_pydantic_bounds_and_types_come_first():
    error = invalid("chain_sum", min_terms="2", size=MAX_SIZE + 1, dataset_seed=-1)
    assert {p.field for p in error.problems} == {"min_terms", "size", "dataset_seed"}
    invalid("chain_sum", min_terms=10**9)
    invalid("chain_sum", attempts=0)
    invalid("chain_sum", system_prompt_style="nope")


def test_the_fields_that_need_care():
    # enums by value, Literal choices, dates as ISO text, tuples as lists, the nested dataclass
    ok = swift_gym.make(
        {"name": "reasoning_gym.word_sorting", "transformation": "uppercase"}
    ).config.dataclass_config()
    assert ok.transformation.value == "uppercase" and isinstance(ok.transformation, enum.Enum)
    invalid("word_sorting", transformation="sideways")
    aiw = swift_gym.make({"name": "reasoning_gym.aiw", "task_types": ["friends"]})
    assert [t.value for t in aiw.config.dataclass_config().task_types] == ["friends"]
    invalid("basic_arithmetic", format_style="fancy")
    dates = swift_gym.make({"name": "reasoning_gym.time_intervals", "min_date": "2000-01-01"})
    assert dates.config.dataclass_config().min_date == datetime.date(2000, 1, 1)
    error = invalid("time_intervals", min_date="yesterday")
    assert "ISO date" in str(error)
    countdown = swift_gym.make({"name": "reasoning_gym.countdown", "operators": ["+", "-"]})
    assert countdown.config.dataclass_config().operators == ("+", "-")
    poly = swift_gym.make({"name": "reasoning_gym.polynomial_multiplication"}).config
    assert poly.dataclass_config().variables == ("x", "y", "z")  # `tuple[str]`, three of them
    arc = swift_gym.make(
        {"name": "reasoning_gym.arc_agi", "board_format_opts": {"col_delimiter": ","}}
    ).config.dataclass_config()
    assert type(arc.board_format_opts).__name__ == "BoardFormattingOptions"
    assert arc.board_format_opts.col_delimiter == "," and len(arc.board_format_opts.alphabet) == 10
    error = invalid("arc_agi", board_format_opts={"colour": 1})
    assert "board_format_opts.colour" in str(error)
    rearc = swift_gym.make({"name": "reasoning_gym.rearc", "diff_lb": 0.1, "diff_ub": 0.3})
    assert rearc.config.dataclass_config().diff_ub == 0.3
    ranges = swift_gym.make({"name": "reasoning_gym.rearc"}).config.dataclass_config()
    assert ranges.rng_difficulty_ranges[0] == (0.0, 0.025)
    invalid("rearc", rng_difficulty_ranges=[[0.1, 0.2, 0.3]])


def test_composite_takes_known_tasks_and_needs_one():
    error = invalid("composite")
    assert [p.field for p in error.problems] == ["datasets"]
    error = invalid("composite", datasets=[{"name": "os.system", "weight": 1.0, "config": {}}])
    assert error.problems[0].field == "datasets.0.name"
    error = invalid("composite", datasets=[{"name": "chain_sum", "weight": 0.0, "config": {}}])
    assert "weight" in str(error).lower()
    invalid("composite", datasets=[{"name": "chain_sum", "weight": 1.0, "config": {"a": {}}}])


def test_word_ladders_size_limit_is_a_config_error():
    error = invalid("word_ladder", size=MAX_SIZE)
    assert [p.field for p in error.problems] == ["size"] and "too large" in str(error)


async def test_a_refusal_only_the_dataset_build_makes_is_an_invalid_config_at_reset():
    """composite builds its tasks' datasets in its constructor: their checks come at reset."""
    spec = {"name": "chain_sum", "weight": 1.0, "config": {"min_terms": 0}}
    env = swift_gym.make({"name": "reasoning_gym.composite", "seed": 0, "datasets": [spec]})
    with pytest.raises(swift_gym.InvalidConfigError, match="min_terms must be positive"):
        await env.reset()
