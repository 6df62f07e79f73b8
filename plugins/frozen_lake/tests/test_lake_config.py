"""FrozenLakeConfig: bounds, strict types, explicit maps, error text and the JSON schema."""

from __future__ import annotations

import json

import pytest

from swift_gym import EnvConfig, InvalidConfigError
from swift_gym_frozen_lake import FrozenLakeConfig, FrozenLakeEnv


def problems_of(env_config):
    with pytest.raises(InvalidConfigError) as caught:
        FrozenLakeEnv(env_config)
    return caught.value, caught.value.problems


def test_defaults():
    config = FrozenLakeEnv({}).config
    assert isinstance(config, FrozenLakeConfig)
    assert isinstance(config, EnvConfig)
    assert config.model_dump() == {
        "name": None,
        "seed": None,
        "map": None,
        "size": 4,
        "p": 0.8,
        "is_slippery": False,
        "max_steps": None,
        "goal_reward": 1.0,
        "hole_reward": 0.0,
        "step_reward": 0.0,
        "distance_reward": 0.0,
        "invalid_action_reward": 0.0,
        "action_parsing": "first_tag",
        "action_format": "tag",
        "text_style": "swift_gym",
    }


def test_none_config_and_name_are_accepted():
    assert FrozenLakeEnv(None).config.size == 4
    assert FrozenLakeEnv({"name": "frozen_lake", "seed": 0}).map == ("GFFF", "FFSF", "FFHF", "FFFF")


@pytest.mark.parametrize(
    ("field", "good", "bad"),
    [
        ("size", [2, 17, 64], [1, 0, -3, 65, 1000]),
        ("p", [1e-9, 0.5, 1.0, 1], [0.0, -0.1, 1.0000001, 2]),
        ("max_steps", [None, 1, 10_000], [0, -1, 10_001]),
        ("goal_reward", [-1e6, 0.0, 1e6, 5], [-1e6 - 1, 1e6 + 1, 1e300]),
        ("hole_reward", [-1.0, 0.0], [-2e6]),
        ("step_reward", [-0.01, 0.0], [2e6]),
        ("invalid_action_reward", [-0.1, 0.0], [-1e7]),
        ("seed", [None, 0, 2**64 - 1], [-1, 2**64]),
    ],
)
def test_field_bounds(field, good, bad):
    for value in good:
        assert getattr(FrozenLakeConfig.model_validate({field: value}), field) == value
        FrozenLakeEnv({field: value, "size": 3} if field != "size" else {field: value, "p": 1.0})
    for value in bad:
        error, problems = problems_of({field: value})
        assert [problem.field for problem in problems] == [field]
        assert problems[0].value == value
        text = str(error)
        assert f"  - {field}: " in text
        assert f"(got {value!r})" in text


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("size", "4"),
        ("size", 4.0),
        ("size", True),
        ("p", "0.8"),
        ("p", None),
        ("is_slippery", "true"),
        ("is_slippery", 1),
        ("max_steps", 5.5),
        ("goal_reward", "1"),
        ("action_parsing", "first"),
        ("action_parsing", None),
        ("map", 5),
        ("map", {"rows": ["SF", "FG"]}),
    ],
)
def test_types_are_strict(field, value):
    _, problems = problems_of({field: value})
    assert [problem.field for problem in problems] == [field]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_floats_are_refused(value):
    for field in ("p", "goal_reward", "step_reward"):
        _, problems = problems_of({field: value})
        assert problems[0].field == field


def test_action_parsing_modes():
    for mode in ("first_tag", "last_tag", "single_tag", "exact", "upstream"):
        assert FrozenLakeEnv({"action_parsing": mode}).config.action_parsing == mode
    error, _ = problems_of({"action_parsing": "last"})
    assert "'first_tag', 'last_tag', 'single_tag', 'exact' or 'upstream'" in str(error)


def test_text_styles():
    assert FrozenLakeEnv({}).config.text_style == "swift_gym"
    for style in ("swift_gym", "ms_swift"):
        assert FrozenLakeEnv({"text_style": style}).config.text_style == style
    error, problems = problems_of({"text_style": "ms-swift"})
    assert [problem.field for problem in problems] == ["text_style"]
    assert "'swift_gym' or 'ms_swift'" in str(error)


@pytest.mark.parametrize(("field", "value"), [("is_slippery", True), ("max_steps", 5)])
def test_ms_swift_text_refuses_what_its_words_cannot_say(field, value):
    error, problems = problems_of({"text_style": "ms_swift", field: value})
    assert [problem.field for problem in problems] == ["text_style"]
    assert f"none for {field}; drop {field} or use text_style 'swift_gym'" in str(error)
    assert FrozenLakeEnv({"text_style": "swift_gym", field: value}).config.text_style
    assert FrozenLakeEnv({field: value}).config.text_style == "swift_gym"


def test_ms_swift_text_takes_every_other_field():
    config = {
        "text_style": "ms_swift",
        "map": "SFF/FHF/FFG",
        "is_slippery": False,
        "max_steps": None,
        "goal_reward": 2.0,
        "step_reward": -0.01,
        "action_parsing": "single_tag",
    }
    assert FrozenLakeEnv(config).config.text_style == "ms_swift"


def test_unknown_key_gets_did_you_mean():
    error, problems = problems_of({"sede": 3})
    assert problems[0].field == "sede"
    assert problems[0].suggestion == "seed"
    text = str(error)
    assert "unknown key" in text and "did you mean 'seed'?" in text and "(got 3)" in text
    _, problems = problems_of({"slippery": True})
    assert problems[0].suggestion == "is_slippery"


def test_every_problem_is_reported_at_once():
    error, problems = problems_of({"size": 1, "p": 0, "max_steps": 0, "sede": 1})
    assert sorted(problem.field for problem in problems) == ["max_steps", "p", "sede", "size"]
    assert "(4 problems)" in str(error)


def test_the_error_names_the_env():
    error, _ = problems_of({"size": 1})
    assert "'FrozenLakeEnv'" in str(error)
    error, _ = problems_of({"name": "frozen_lake", "size": 1})
    assert "'frozen_lake'" in str(error)


def test_unsolvable_random_map_fails_at_construction_on_field_p():
    error, problems = problems_of({"size": 64, "p": 1e-9, "seed": 2})
    assert problems[0].field == "p"
    assert "no solvable 64x64 map" in str(error)
    assert "'FrozenLakeEnv'" in str(error)


@pytest.mark.parametrize(
    "value",
    ["SFFF/FHFH/FFFH/HFFG", "SFFF\nFHFH\nFFFH\nHFFG\n", ["SFFF", "FHFH", "FFFH", "HFFG"]],
)
def test_explicit_map_forms(value):
    env = FrozenLakeEnv({"map": value})
    assert env.map == ("SFFF", "FHFH", "FFFH", "HFFG")
    assert env.config.map == ("SFFF", "FHFH", "FFFH", "HFFG")
    assert env.config.size == 4
    assert env.config.model_dump()["map"] == ["SFFF", "FHFH", "FFFH", "HFFG"]


def test_map_sets_size_and_agreeing_size_is_fine():
    assert FrozenLakeEnv({"map": "SFF/FFF/FFG"}).config.size == 3
    assert FrozenLakeEnv({"map": "SFF/FFF/FFG", "size": 3}).config.size == 3


def test_map_ignores_p_and_seed_for_the_layout():
    env = FrozenLakeEnv({"map": "SF/FG", "p": 0.1, "seed": 3})
    assert env.map == ("SF", "FG")


@pytest.mark.parametrize(
    ("env_config", "field", "message"),
    [
        ({"map": "SFF/FG"}, "map", "map must be square"),
        ({"map": "SFF/FFF"}, "map", "map must be square: 2 rows, but row 0 has 3 cells"),
        (
            {"map": "SFX/FFF/FFG"},
            "map",
            "map may only use S (start), F (frozen), H (hole), G (goal)",
        ),
        ({"map": "SSF/FFF/FFG"}, "map", "exactly one S (start), found 2"),
        ({"map": "SFF/FFF/FFF"}, "map", "exactly one G (goal), found 0"),
        ({"map": "SFF/HHH/FFG"}, "map", "map is unsolvable"),
        ({"map": "S"}, "map", "map must have 2 to 64 rows, got 1"),
        ({"map": ""}, "map", "map must have 2 to 64 rows, got 0"),
        ({"map": ["F" * 64] * 65}, "map", "map must have 2 to 64 rows, got 65"),
        ({"map": ["S" + "F" * 200, "FG"]}, "map", "at most 64 cells"),
        ({"map": "S" * 10_000}, "map", "map text is too long"),
        ({"map": ["SF", 5]}, "map", "map must be a string of rows"),
        ({"map": "SFF/FFF/FFG", "size": 4}, "size", "size 4 does not match the 3x3 map"),
    ],
)
def test_explicit_map_errors(env_config, field, message):
    error, problems = problems_of(env_config)
    assert [problem.field for problem in problems] == [field]
    assert message in str(error)


def test_config_is_frozen_and_hashable():
    config = FrozenLakeEnv({"map": "SF/FG"}).config
    with pytest.raises(Exception, match="frozen"):
        config.size = 5  # type: ignore[misc]
    assert hash(config) == hash(FrozenLakeConfig.model_validate({"map": "SF/FG"}))


def test_config_instance_round_trips_through_the_env():
    config = FrozenLakeConfig.model_validate({"map": "SFF/FFF/FFG", "max_steps": 5})
    assert FrozenLakeEnv(config).config == config
    dumped = json.loads(config.model_dump_json())
    assert FrozenLakeEnv(dumped).config == config
    assert FrozenLakeEnv(config.model_dump(exclude_unset=True)).config == config


def test_json_schema_has_bounds_and_descriptions():
    schema = FrozenLakeConfig.model_json_schema()
    json.dumps(schema)
    props = schema["properties"]
    assert schema["additionalProperties"] is False
    assert props["size"]["minimum"] == 2 and props["size"]["maximum"] == 64
    assert props["size"]["default"] == 4
    assert props["p"]["exclusiveMinimum"] == 0 and props["p"]["maximum"] == 1
    steps = next(option for option in props["max_steps"]["anyOf"] if option["type"] == "integer")
    assert steps["minimum"] == 1 and steps["maximum"] == 10_000
    for field in ("goal", "hole", "step", "distance", "invalid_action"):
        field = f"{field}_reward"
        assert props[field]["minimum"] == -1e6 and props[field]["maximum"] == 1e6
    assert props["action_parsing"]["enum"] == [
        "first_tag",
        "last_tag",
        "single_tag",
        "exact",
        "upstream",
    ]
    assert props["is_slippery"]["type"] == "boolean"
    map_types = {option["type"] for option in props["map"]["anyOf"]}
    assert map_types == {"string", "array", "null"}
    rows = next(option for option in props["map"]["anyOf"] if option["type"] == "array")
    assert rows["maxItems"] == 64
    for name, prop in props.items():
        assert prop.get("description"), name
