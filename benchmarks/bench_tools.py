"""Tool calls: checking one call's arguments against its tool's schema, per call.

The goals (the issue's): under 20 us per call for a one-enum schema, parse included, and under
50 ms per call for the worst schema an env or an MCP server can list. Measured from `ToolCall`
text to parsed, checked arguments (`ToolSet.check`).

One enum: against two baselines run in the same rounds: `json.loads` alone (the floor: any
check parses), and the `jsonschema` library (Draft 2020-12, validator built once) on the same
parse, when it is installed, which is the choice `swift_gym.tools.schema` made against. Calls
alternate between a valid one and one that fails on the enum (so error messages are paid half
the time); every side must reach the same verdicts, checked before timing.

The worst schemas: what `ToolSet` lets through is bounded by `tools.schema.MAX_SCHEMA_SIZE`
(subschemas and enum values per tool), a call by `toolset.MAX_ARGUMENT_CHARS`, and one check by
`tools.schema.WORK_LIMIT` steps. Each case below is a schema at the size limit and arguments at
the length limit built to cost the most per step (issue 34's attacks), with text that also sends
the parse down its slower paths (a `\\u` escape and 309 digits in a row: the surrogate walk and
the decoder that checks each integer); `json.loads` of the same text is the baseline. Before timing,
each case must end as expected (the wide ones stop at the work limit).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from bench_timing import goal, interleaved, median, ratio_row, write_json

from swift_gym import ToolCall, ToolResult, ToolSet
from swift_gym.tools.schema import MAX_SCHEMA_SIZE, WORK_LIMIT
from swift_gym.tools.toolset import MAX_ARGUMENT_CHARS

GOAL_US = 20.0
WORST_GOAL_MS = 50.0
PARAMETERS = {
    "type": "object",
    "properties": {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["unit"],
    "additionalProperties": False,
}
TOOL = {"type": "function", "function": {"name": "set_unit", "parameters": PARAMETERS}}
CALLS = [
    ToolCall("call_1", "set_unit", '{"unit": "celsius"}'),
    ToolCall("call_2", "set_unit", '{"unit": "kelvin"}'),
]


def checkers() -> dict[str, Callable[[ToolCall], bool]]:
    """Each side as `call -> valid?`."""
    tools = ToolSet([TOOL])
    sides: dict[str, Callable[[ToolCall], bool]] = {
        "swift-gym": lambda call: not isinstance(tools.check(call), ToolResult),
        "json.loads": lambda call: json.loads(call.arguments) is not None,
    }
    try:
        import jsonschema
    except ImportError:
        return sides
    validator = jsonschema.Draft202012Validator(PARAMETERS)

    def with_jsonschema(call: ToolCall) -> bool:
        # the message the model would read: the first error, as swift-gym builds one
        error = next(validator.iter_errors(json.loads(call.arguments)), None)
        return error is None or not str(error.message)

    sides["jsonschema"] = with_jsonschema
    return sides


def per_call_us(check: Callable[[ToolCall], bool], calls: int) -> Callable[[], float]:
    batch = CALLS * (calls // len(CALLS))

    def once() -> float:
        start = time.perf_counter()
        for call in batch:
            check(call)
        return (time.perf_counter() - start) / len(batch) * 1e6

    return once


def _fill(item: str, around: str) -> str:
    """`around` with `{}` replaced by as many `item`s, comma-separated, as fit the limit."""
    room = MAX_ARGUMENT_CHARS - len(around) + 2
    return around.replace("{}", ",".join([item] * (room // (len(item) + 1))))


def _tool(properties: dict[str, Any]) -> ToolSet:
    parameters = {"type": "object", "properties": {"note": {"type": "string"}, **properties}}
    return ToolSet([{"type": "function", "function": {"name": "f", "parameters": parameters}}])


SLOW_PARSE = '"note": "\\u00e9 ' + "9" * 309 + '"'
"""A string that sends the parse down both slower paths: a `\\u` escape (the lone-surrogate
walk over the whole value) and 309 digits in a row (the decoder that checks each integer)."""


def worst_cases() -> dict[str, tuple[ToolSet, str, bool]]:
    """name -> (tools, arguments text, whether the check must stop at the work limit)."""
    branches = (MAX_SCHEMA_SIZE - 8) // 2  # a subschema and a const value each
    wide = [{"const": number} for number in reversed(range(branches))]  # 0 matches last
    # enum values of 61 items each, as many as the schema allows; only the last is all zeros,
    # so each item is compared with every value, to its last item
    length = 60
    allowed = [[0] * length + [n] for n in range(1, (MAX_SCHEMA_SIZE - 8) // (length + 2))]
    allowed.append([0] * (length + 1))
    keys = [{"const": number} for number in reversed(range(1000))]
    return {
        f"items under a {branches:,}-branch anyOf": (
            _tool({"xs": {"type": "array", "items": {"anyOf": wide}}}),
            _fill("0", "{" + SLOW_PARSE + ', "xs": [{}]}'),
            True,
        ),
        f"items against {len(allowed)} enum arrays of {length + 1} items": (
            _tool({"xs": {"type": "array", "items": {"enum": allowed}}}),
            _fill(json.dumps([0] * (length + 1)), "{" + SLOW_PARSE + ', "xs": [{}]}'),
            True,
        ),
        "object keys under a 1,000-branch anyOf": (
            _tool({"kv": {"type": "object", "additionalProperties": {"anyOf": keys}}}),
            "{"
            + SLOW_PARSE
            + ', "kv": {'
            + ",".join(f'"{index}":0' for index in range(6000))
            + "}}",
            True,
        ),
    }


def measure_worst(calls: int, repeats: int) -> tuple[list[dict[str, Any]], float]:
    """Rows (ms per call against json.loads of the same text) and the worst case's ms."""
    rows, worst = [], 0.0
    for name, (tools, text, stops) in worst_cases().items():
        assert len(text) <= MAX_ARGUMENT_CHARS, (name, len(text))
        call = ToolCall("call_1", "f", text)
        result = tools.check(call)
        stopped = isinstance(result, ToolResult) and "too costly to check" in result.content
        if stopped != stops:
            raise AssertionError(f"{name}: expected the check to stop: {str(result)[:300]}")
        sides = {
            "swift-gym": per_call_ms(lambda call=call, tools=tools: tools.check(call), calls),
            "json.loads": per_call_ms(lambda text=text: json.loads(text), calls),
        }
        ms = {side: median(values) for side, values in interleaved(sides, repeats).items()}
        rows.append(ratio_row(f"ms per call, {name}", ms["swift-gym"], ms["json.loads"], " ms"))
        worst = max(worst, ms["swift-gym"])
    return rows, worst


def per_call_ms(check: Callable[[], Any], calls: int) -> Callable[[], float]:
    def once() -> float:
        start = time.perf_counter()
        for _ in range(calls):
            check()
        return (time.perf_counter() - start) / calls * 1e3

    return once


def measure(calls: int, repeats: int, worst_calls: int) -> dict[str, Any]:
    sides = checkers()
    verdicts = {name: [check(call) for call in CALLS] for name, check in sides.items()}
    if any(verdict != [True, False] for name, verdict in verdicts.items() if name != "json.loads"):
        raise AssertionError(f"the checkers disagree: {verdicts}")
    results = interleaved(
        {name: per_call_us(check, calls) for name, check in sides.items()}, repeats
    )
    us = {name: median(values) for name, values in results.items()}
    rows = [ratio_row("us per call vs json.loads alone", us["swift-gym"], us["json.loads"], " us")]
    if "jsonschema" in us:
        rows.append(
            ratio_row("us per call vs jsonschema", us["swift-gym"], us["jsonschema"], " us")
        )
    worst_rows, worst_ms = measure_worst(worst_calls, repeats)
    rows.extend(worst_rows)
    why = "" if "jsonschema" in us else "(jsonschema is not installed: no comparison row)"
    return {
        "benchmark": "tool calls",
        "repeats": repeats,
        "detail": f"one enum: {calls} calls per repeat (half valid, half failing the enum); "
        f"the worst schemas: {worst_calls} calls per repeat, each at the limits "
        f"({MAX_SCHEMA_SIZE:,} subschemas and enum values, {MAX_ARGUMENT_CHARS:,} characters "
        f"of arguments, {WORK_LIMIT:,} steps); median of {repeats} repeats {why}".strip(),
        "rows": rows,
        "goals": [
            goal(
                f"< {GOAL_US:g} us per call, one-enum schema",
                f"{us['swift-gym']:.2f} us",
                us["swift-gym"] < GOAL_US,
                "half the calls fail and pay for the message the model reads",
            ),
            goal(
                f"< {WORST_GOAL_MS:g} ms per call, the worst schema an env can list",
                f"{worst_ms:.1f} ms",
                worst_ms < WORST_GOAL_MS,
                "the check stops at tools.schema.WORK_LIMIT steps; this machine runs them slower",
            ),
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--worst-calls", type=int, default=5, help="per repeat, per worst case")
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.calls, args.repeats, args.worst_calls))


if __name__ == "__main__":
    main()
