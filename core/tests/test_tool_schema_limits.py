"""What a schema check may cost, and what it counts as equal: the attacks of issue 34.

A model writes the arguments and an env or an MCP server writes the schema, so neither may make
one check cost seconds on the event loop (a wide `anyOf` under `items`, a message built for
every failing branch), a number past the float range may not pass as infinity, and `enum` and
`const` compare values as JSON Schema does (1 and 1.0 are equal, true and 1 are not).
Costs are counted here, never timed: `benchmarks/bench_tools.py` times them.
"""

from __future__ import annotations

import json

import pytest

from swift_gym import InvalidToolsError, ToolCall, ToolResult, ToolSet
from swift_gym.tools import schema as tool_schema
from swift_gym.tools.schema import MAX_SCHEMA_SIZE, WORK_LIMIT, compile_schema, describe


def tool(parameters: dict, name: str = "f") -> dict:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def one_property(schema: object) -> ToolSet:
    return ToolSet([tool({"type": "object", "properties": {"x": schema}})])


def checked(tools: ToolSet, arguments: object) -> object:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
    return tools.check(ToolCall("call_1", "f", text))


def error_text(tools: ToolSet, arguments: object) -> str:
    result = checked(tools, arguments)
    assert isinstance(result, ToolResult) and result.is_error, f"passed: {result!r}"
    return result.content


def wide_any_of(branches: int) -> ToolSet:
    """An array whose every item may be any of `branches` integers, 0 the last one tried: the
    issue's attack."""
    forms = [{"const": number} for number in reversed(range(branches))]
    return one_property({"type": "array", "items": {"anyOf": forms}})


# A wide anyOf under items: bounded work, a bounded message


def test_a_thousand_branch_any_of_under_items_stops_at_the_work_limit() -> None:
    """Each item matches only the last branch, so each costs every branch: 20,000 items would
    be 20 million branch checks (about 25 s before the limit). The check stops where the work
    runs out and says so, naming the item it reached."""
    arguments = {"x": [0] * 20_000 + ["not a number"]}
    text = error_text(wide_any_of(1000), arguments)
    assert "too costly to check" in text
    assert f"{WORK_LIMIT:,}" in text
    reached = int(text.split("x[", 1)[1].split("]", 1)[0])
    assert reached <= WORK_LIMIT // 1000  # each item cost its 1,000 branches
    assert len(text) < 400


def test_a_failing_branch_builds_no_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 items each fail 99 branches before the last matches: only the one mismatch the model
    reads is rendered (today's checker rendered all 19,800)."""
    rendered = []

    def counted_repr(value: object, limit: int = 80) -> str:
        rendered.append(value)
        return repr(value)[:limit]

    tools = wide_any_of(100)  # compiled first: its messages' schema parts are made once
    monkeypatch.setattr(tool_schema, "short_repr", counted_repr)
    text = error_text(tools, {"x": [0] * 200 + [-1]})
    assert "x[200]: must match one of its 100 allowed forms (got -1)" in text
    assert len(rendered) <= 2


def test_a_call_within_the_limit_is_checked_to_the_end() -> None:
    """The limit refuses only what no tool call needs: 100 items of a 100-branch anyOf pass."""
    assert checked(wide_any_of(100), {"x": [0] * 100}) == {"x": [0] * 100}
    assert "x[100]: must match one of its 100" in error_text(
        wide_any_of(100), {"x": [1] * 100 + [""]}
    )


def test_the_work_is_counted_per_branch_item_and_key() -> None:
    """With a small limit the count is exact enough to predict where the check stops."""
    schema = {"type": "array", "items": {"anyOf": [{"const": 1}, {"const": 2}, {"const": 3}]}}
    check = compile_schema(schema, work_limit=100)
    assert check([3] * 20) is None  # 20 items, each 1 step + 3 branches: 80 steps
    stopped = check([3] * 40)
    assert stopped is not None and tool_schema.is_too_costly(stopped)
    assert describe(stopped).startswith("[24]: ")  # the 25th item passes step 100
    wide = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert compile_schema(wide, work_limit=100)({str(i): i for i in range(40)}) is None
    assert compile_schema(wide, work_limit=100)({str(i): i for i in range(60)}) is not None


def test_enum_values_that_are_arrays_cost_their_size_not_the_arguments() -> None:
    """Comparing a 30,000-item argument with 500 allowed two-item arrays stops at the lengths:
    the work is the allowed values' size (500 x 3 JSON values), not 500 x 30,000."""
    schema = {"enum": [[index, 0] for index in range(500)]}
    mismatch = compile_schema(schema, work_limit=2_000)(list(range(30_000)))
    assert mismatch is not None and not tool_schema.is_too_costly(mismatch)
    assert describe(mismatch).startswith("must be one of [0, 0], [1, 0]")
    assert compile_schema(schema, work_limit=2_000)([499, 0.0]) is None


# The schemas an env or an MCP server may list are bounded


def test_a_schema_larger_than_the_limit_is_refused_when_offered() -> None:
    with pytest.raises(InvalidToolsError) as caught:
        ToolSet(
            [
                tool(
                    {
                        "type": "object",
                        "properties": {
                            "x": {"anyOf": [{"const": i} for i in range(MAX_SCHEMA_SIZE)]}
                        },
                    }
                )
            ],
            "wide",
        )
    text = str(caught.value)
    assert "tools[0].function.parameters" in text
    assert f"at most {MAX_SCHEMA_SIZE:,}" in text


def test_a_long_enum_counts_toward_the_limit_too() -> None:
    one_property({"enum": list(range(MAX_SCHEMA_SIZE // 2))})  # fits
    with pytest.raises(InvalidToolsError, match=f"at most {MAX_SCHEMA_SIZE:,}"):
        one_property({"enum": list(range(MAX_SCHEMA_SIZE))})
    with pytest.raises(InvalidToolsError, match=f"at most {MAX_SCHEMA_SIZE:,}"):
        one_property({"const": [[0] * 100] * 100})  # one value of 10,101 JSON values


# Numbers past the float range


@pytest.mark.parametrize(
    "number",
    [
        "1e400",
        "-1e400",
        "1E+400",
        "1.5e999999",
        "1" + "0" * 400,
        "-" + "9" * 330,
        "1" + "0" * 250 + "e99",
    ],
)
def test_a_number_past_the_float_range_is_refused_like_nan(number: str) -> None:
    tools = one_property({"type": "number"})
    text = error_text(tools, f'{{"x": {number}}}')
    assert "past the range" in text and "write a smaller number" in text
    assert number[:20] in text and len(text) < 300
    assert "past the range" in error_text(tools, f'{{"y": [1, {{"z": {number}}}]}}')  # anywhere


def test_numbers_within_the_float_range_pass() -> None:
    tools = one_property({"type": "number"})
    assert checked(tools, '{"x": 1.7976931348623157e308}') == {"x": 1.7976931348623157e308}
    assert checked(tools, '{"x": 1e-400}') == {"x": 0.0}  # rounds to zero: a number still
    assert checked(tools, '{"x": 1e099}') == {"x": 1e99}
    big = "9" * 300  # an integer past 2**53 but within the float range stays exact
    assert checked(tools, f'{{"x": {big}}}') == {"x": int(big)}


# enum and const compare as JSON Schema says


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"enum": [1]}, 1.0),
        ({"const": 1.0}, 1),
        ({"enum": [[1]]}, [1.0]),
        ({"const": {"a": 1.0}}, {"a": 1}),
        ({"const": {"a": [1, {"b": 2}]}}, {"a": [1.0, {"b": 2.0}]}),
        ({"const": [0]}, [-0.0]),
        ({"enum": ["x", {"b": 1, "a": 2}]}, {"a": 2, "b": 1}),
    ],
)
def test_equal_json_values_match(schema: dict, value: object) -> None:
    assert checked(one_property(schema), {"x": value}) == {"x": value}


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"const": 1}, True),
        ({"enum": [0]}, False),
        ({"const": [1]}, [True]),
        ({"const": {"a": 0}}, {"a": False}),
        ({"const": True}, 1.0),
        ({"const": [1, 2]}, [1, 2, 3]),
        ({"const": {"a": 1}}, {"a": 1, "b": 1}),
        ({"const": {"a": None}}, {"b": None}),
        ({"const": "1"}, 1),
        ({"const": [[]]}, [{}]),
    ],
)
def test_unequal_json_values_do_not(schema: dict, value: object) -> None:
    assert "x: must be" in error_text(one_property(schema), {"x": value})


def test_an_enum_of_values_json_cannot_hold_is_refused() -> None:
    with pytest.raises(InvalidToolsError, match="enum"):
        one_property({"enum": [float("inf")]})
