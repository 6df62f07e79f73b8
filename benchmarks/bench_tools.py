"""Tool calls: checking one call's arguments against its tool's schema, per call.

The goal (the issue's): under 20 us per call for a one-enum schema, parse included. Measured
from `ToolCall` text to parsed, checked arguments (`ToolSet.check`), against two baselines run
in the same rounds: `json.loads` alone (the floor: any check parses), and the `jsonschema`
library (Draft 2020-12, validator built once) on the same parse, when it is installed, which is
the choice `swift_gym.tool_schema` made against. Calls alternate between a valid one and one
that fails on the enum (so error messages are paid half the time); every side must reach the
same verdicts, checked before timing.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from bench_timing import goal, interleaved, median, ratio_row, write_json

from swift_gym import ToolCall, ToolResult, ToolSet

GOAL_US = 20.0
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


def measure(calls: int, repeats: int) -> dict[str, Any]:
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
    why = "" if "jsonschema" in us else "(jsonschema is not installed: no comparison row)"
    return {
        "benchmark": "tool calls",
        "repeats": repeats,
        "detail": f"{calls} calls per repeat (half valid, half failing the enum); "
        f"median of {repeats} repeats {why}".strip(),
        "rows": rows,
        "goals": [
            goal(
                f"< {GOAL_US:g} us per call, one-enum schema",
                f"{us['swift-gym']:.2f} us",
                us["swift-gym"] < GOAL_US,
                "half the calls fail and pay for the message the model reads",
            )
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.calls, args.repeats))


if __name__ == "__main__":
    main()
