"""Work and output stay bounded whatever the data holds: values in messages, problem lists,
JSON depth, lone surrogates, NaN in --json, and the --mix order of any number of rows."""

from __future__ import annotations

import json
import math

import pytest
from pydantic import Field

from swift_gym.cli.mix import row_counts, row_envs
from swift_gym.config import EnvConfig, validate_config
from swift_gym.errors import MAX_PROBLEMS, InvalidConfigError, printable, short_repr
from swift_gym.json_text import MAX_DEPTH, TooDeepError, dumps, loads


class Counted:
    """Counts how often it is rendered."""

    renders = 0

    def __repr__(self) -> str:
        Counted.renders += 1
        return "c"


def test_short_repr_bounds_the_work_not_only_the_output() -> None:
    Counted.renders = 0
    text = short_repr([Counted()] * 1_000_000)
    assert len(text) <= 80
    assert Counted.renders <= 10
    assert len(short_repr({f"k{i}": i for i in range(200_000)})) <= 80
    deep: list = []
    for _ in range(100_000):  # repr() of this raises RecursionError
        deep = [deep]
    assert short_repr(deep).startswith("[[")


def test_short_repr_escapes_and_survives_a_failing_repr() -> None:
    assert short_repr("\x1b[2J\ud800") == "'\\x1b[2J\\ud800'"

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert short_repr(Broken()).startswith("<Broken")


def test_printable_cuts_and_escapes_text_from_data() -> None:
    assert printable("ok text") == "ok text"
    assert printable("a\x1b]0;title\x07b\nc") == "a\\x1b]0;title\\x07b\\nc"
    assert printable("x" * 1000, 10) == "x" * 10 + "..."


class Small(EnvConfig):
    size: int = Field(4, ge=2, le=8)


def test_invalid_config_lists_the_first_problems_and_counts_the_rest() -> None:
    with pytest.raises(InvalidConfigError) as caught:
        validate_config(Small, {f"key{i}": i for i in range(5000)}, "small")
    error = caught.value
    assert len(error.problems) == MAX_PROBLEMS
    assert error.omitted == 5000 - MAX_PROBLEMS
    text = str(error)
    assert "(5000 problems)" in text
    assert text.endswith(f"and {5000 - MAX_PROBLEMS} more")
    assert len(text) < 10_000


def test_loads_refuses_deep_json_before_anything_recurses_on_it() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    for depth in (MAX_DEPTH + 1, 900, 100_000):
        with pytest.raises(TooDeepError, match="nested more than 100 levels deep"):
            loads("[" * depth + "]" * depth)
    assert isinstance(TooDeepError(), ValueError)


def test_dumps_keeps_lone_surrogates_exact_and_always_encodes() -> None:
    record = {"reply": "\ud800 ok é", "info": {(1, 2): "tuple key"}}
    text = dumps(record)
    text.encode("utf-8")  # never raises
    assert "é" in text  # other text stays as written
    assert json.loads(text)["reply"] == "\ud800 ok é"
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert json.loads(dumps({"deep": deep}))  # cut, not RecursionError


def test_strict_dumps_has_no_nan_or_infinity() -> None:
    text = dumps({"a": math.nan, "b": [math.inf, -math.inf, 1.5]}, strict=True)
    assert json.loads(text, parse_constant=lambda c: pytest.fail(c)) == {
        "a": None,
        "b": [None, None, 1.5],
    }


def test_row_envs_streams_any_number_of_rows_with_exact_counts() -> None:
    mix = [("a", 3.0), ("b", 1.0)]
    counts = row_counts(mix, 10**30 + 1)
    assert sum(counts.values()) == 10**30 + 1
    assert counts["b"] == 25 * 10**28  # exact, as floats cannot be at this size
    first = row_envs(mix, 10**18, seed=0)  # a list would not fit in memory
    assert {next(first) for _ in range(100)} == {"a", "b"}
    order = list(row_envs(mix, 400, seed=1))
    assert order.count("a") == 300
