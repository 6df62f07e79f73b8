"""The command's pure parts, in-process: parsing, statistics, ordering, field descriptions."""

from __future__ import annotations

import io
import json
import math
from typing import Literal

import pytest
from pydantic import Field

from swift_gym import EnvConfig
from swift_gym.cli.errors import CommandError
from swift_gym.cli.mix import parse_mix, row_counts, row_envs
from swift_gym.cli.options import parse_overrides, parse_value
from swift_gym.cli.schema_view import field_rows
from swift_gym.evaluation.records import OrderedWriter
from swift_gym.evaluation.stats import json_safe, mean_ci, summarize, wilson_ci


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("6", 6),
        ("0.5", 0.5),
        ("true", True),
        ("null", None),
        ('["SF", "FG"]', ["SF", "FG"]),
        ('"007"', "007"),
        ("SF/FG", "SF/FG"),
        ("", ""),
    ],
)
def test_set_values_are_json_literals_else_strings(text: str, value: object) -> None:
    assert parse_value(text) == value


def test_overrides_parse_and_refuse_reserved_keys() -> None:
    assert parse_overrides(["size=6", "map=SF/FG", "p=0.9"]) == {
        "size": 6,
        "map": "SF/FG",
        "p": 0.9,
    }
    with pytest.raises(CommandError, match="use --seed-start"):
        parse_overrides(["seed=3"], {"seed": "use --seed-start"})
    with pytest.raises(CommandError, match="expected KEY=VALUE"):
        parse_overrides(["size"])
    with pytest.raises(CommandError, match="expected KEY=VALUE"):
        parse_overrides(["a b=1"])


def test_mix_weights_names_with_colons_and_errors() -> None:
    assert parse_mix("a:3, b") == [("a", 3.0), ("b", 1.0)]
    assert parse_mix("dist-x:maze:2") == [("dist-x:maze", 2.0)]
    for bad in ("a:0", "a:-1", "a:nan", ",", "a:1,a:2"):
        with pytest.raises(CommandError):
            parse_mix(bad)


def test_mix_counts_are_exact_and_the_order_is_reproducible() -> None:
    mix = [("a", 2.0), ("b", 1.0), ("c", 1.0)]
    assert row_counts(mix, 8) == {"a": 4, "b": 2, "c": 2}
    assert sum(row_counts(mix, 7).values()) == 7
    order = list(row_envs(mix, 64, seed=5))
    assert order == list(row_envs(mix, 64, seed=5))
    assert order != list(row_envs(mix, 64, seed=6))
    assert order.count("a") == 32


def test_mean_ci_and_wilson_interval() -> None:
    mean, low, high = mean_ci([0.0, 1.0, 0.0, 1.0])
    assert mean == 0.5
    assert low < 0.5 < high
    # Student's t with 3 degrees of freedom (scipy.stats.t.ppf(0.975, 3)), not the normal 1.96
    assert high - mean == pytest.approx(3.1824463052837078 * math.sqrt(1 / 3) / 2, rel=1e-12)
    assert mean_ci([2.0]) == (2.0, 2.0, 2.0)
    assert all(math.isnan(x) for x in mean_ci([]))
    low, high = wilson_ci(50, 50)
    assert high == 1.0
    assert 0.9 < low < 1.0
    low, high = wilson_ci(0, 10)
    assert low == 0.0
    assert 0 < high < 0.35


def test_summary_counts_failed_episodes_as_unsuccessful() -> None:
    records = [
        {"total_reward": 1.0, "num_turns": 2, "success": True, "status": "goal", "error": None,
         "turns": [{"valid_action": True}, {"valid_action": False}]},
        {"total_reward": 0.0, "num_turns": 0, "success": False, "status": "error",
         "error": "policy openai: HTTP 500", "turns": []},
    ]  # fmt: skip
    summary = summarize(records)
    assert summary["episodes"] == 2
    assert summary["success_rate"] == 0.5
    assert summary["mean_turns"] == 1.0
    assert summary["invalid_action_rate"] == 0.5
    assert summary["statuses"] == {"goal": 1, "error": 1}
    assert summary["failed_episodes"] == 1
    assert summary["errors"] == {"policy openai: HTTP 500": 1}


def test_summary_of_nothing_is_json_safe() -> None:
    text = json.dumps(json_safe(summarize([])))
    assert "NaN" not in text
    assert json.loads(text)["success_rate"] is None


def test_ordered_writer_writes_by_index_as_soon_as_it_can() -> None:
    out = io.StringIO()
    writer = OrderedWriter(out)
    writer.add({"index": 1, "turns": []})
    assert out.getvalue() == ""
    writer.add({"index": 0, "turns": []})
    writer.add({"index": 3, "turns": []})
    assert [json.loads(line)["index"] for line in out.getvalue().splitlines()] == [0, 1]
    writer.finish()
    assert [json.loads(line)["index"] for line in out.getvalue().splitlines()] == [0, 1, 3]


class Config(EnvConfig):
    size: int = Field(4, ge=2, le=64, description="side")
    p: float = Field(0.8, gt=0, le=1)
    mode: Literal["a", "b"] = "a"
    rows: list[str] | None = Field(None, max_length=8)
    count: int


def test_field_rows_show_types_defaults_and_bounds() -> None:
    rows = {row.name: row for row in field_rows(Config.model_json_schema())}
    assert rows["size"].type == "integer"
    assert rows["size"].default == "4"
    assert rows["size"].bounds == "[2, 64]"
    assert rows["size"].description == "side"
    assert rows["p"].bounds == "(0, 1]"
    assert rows["mode"].bounds == "one of a, b"
    assert rows["rows"].type == "array[string] | null"
    assert rows["rows"].bounds == "items <= 8"
    assert rows["count"].default == "(required)"
    assert rows["seed"].type == "integer | null"
