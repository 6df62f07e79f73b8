"""EnvConfig and validate_config: strict checks, one error listing every problem."""

from __future__ import annotations

import pytest
from pydantic import Field, model_validator

from swift_gym import ConfigProblem, EnvConfig, InvalidConfigError, SwiftGymError, validate_config


class GridConfig(EnvConfig):
    size: int = Field(4, ge=2, le=64)
    p: float = Field(0.8, gt=0, le=1)
    slippery: bool = False

    @model_validator(mode="after")
    def _small_enough(self) -> GridConfig:
        if self.size > 32 and self.slippery:
            raise ValueError("slippery grids are limited to size 32")
        return self


def error_for(config: object) -> InvalidConfigError:
    with pytest.raises(InvalidConfigError) as caught:
        validate_config(GridConfig, config, "grid")  # type: ignore[arg-type]
    return caught.value


def test_defaults_and_name_and_seed_are_accepted() -> None:
    config = validate_config(GridConfig, {"name": "grid", "seed": 7}, "grid")
    assert isinstance(config, GridConfig)
    assert (config.name, config.seed, config.size, config.p) == ("grid", 7, 4, 0.8)


def test_int_is_accepted_for_a_float_field() -> None:
    assert validate_config(GridConfig, {"p": 1}, "grid").p == 1.0


def test_wrong_type_and_unknown_key_are_reported_together() -> None:
    error = error_for({"size": "big", "colour": 1})
    assert isinstance(error, ValueError) and isinstance(error, SwiftGymError)
    assert error.env_name == "grid"
    fields = [problem.field for problem in error.problems]
    assert fields == ["size", "colour"]
    message = str(error)
    assert message.startswith("invalid env_config for env 'grid' (2 problems):")
    assert "size: Input should be a valid integer (got 'big')" in message
    assert "colour: unknown key (got 1)" in message
    assert "allowed keys: name, seed, size, p, slippery" in message
    assert "Traceback" not in message and "errors.pydantic.dev" not in message


def test_misspelt_key_gets_a_did_you_mean() -> None:
    error = error_for({"sede": 3, "slipery": True})
    assert [problem.suggestion for problem in error.problems] == ["seed", "slippery"]
    assert "sede: unknown key (got 3); did you mean 'seed'?" in str(error)


def test_strings_are_not_coerced_to_numbers_or_bools() -> None:
    error = error_for({"size": "4", "slippery": "yes", "seed": True})
    assert sorted(problem.field for problem in error.problems) == ["seed", "size", "slippery"]


@pytest.mark.parametrize(
    ("config", "field", "reason"),
    [
        ({"size": 1}, "size", "greater than or equal to 2"),
        ({"size": 65}, "size", "less than or equal to 64"),
        ({"p": 0}, "p", "greater than 0"),
        ({"p": float("nan")}, "p", "finite number"),
        ({"seed": -1}, "seed", "greater than or equal to 0"),
        ({"seed": 2**64}, "seed", "less than or equal to"),
        ({"name": "x" * 201}, "name", "at most 200 characters"),
    ],
)
def test_bounds_are_enforced(config: dict[str, object], field: str, reason: str) -> None:
    (problem,) = error_for(config).problems
    assert problem.field == field
    assert reason in problem.reason


def test_model_validator_error_names_the_config_and_keeps_its_message() -> None:
    (problem,) = error_for({"size": 40, "slippery": True}).problems
    assert problem.field == "env_config"
    assert problem.reason == "slippery grids are limited to size 32"


def test_a_non_dict_env_config_is_one_clear_problem() -> None:
    (problem,) = error_for(["size", 4]).problems
    assert problem.field == "env_config"
    assert "must be a JSON object" in problem.reason


def test_none_means_all_defaults() -> None:
    assert validate_config(GridConfig, None, "grid") == GridConfig()


def test_a_validated_model_passes_through_unchanged() -> None:
    config = GridConfig(size=5)
    assert validate_config(GridConfig, config, "grid") is config


def test_huge_values_are_shortened_in_the_message() -> None:
    error = error_for({"size": "x" * 100_000})
    assert len(str(error)) < 400
    assert "..." in str(error)


def test_missing_required_field_shows_no_value() -> None:
    class Required(EnvConfig):
        level: int = Field(ge=0, le=9)

    with pytest.raises(InvalidConfigError) as caught:
        validate_config(Required, {}, "required")
    (problem,) = caught.value.problems
    assert problem == ConfigProblem("level", "Field required", problem.value, has_value=False)
    assert "got" not in str(problem)


def test_configs_are_frozen() -> None:
    config = validate_config(GridConfig, {}, "grid")
    with pytest.raises(ValueError):
        config.size = 9  # type: ignore[misc]


def test_json_schema_exports_bounds_and_forbids_extra_keys() -> None:
    schema = GridConfig.model_json_schema()
    assert schema["additionalProperties"] is False
    assert schema["properties"]["size"]["minimum"] == 2
    assert schema["properties"]["size"]["maximum"] == 64
    assert schema["properties"]["seed"]["anyOf"][0]["minimum"] == 0
