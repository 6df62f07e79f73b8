"""Discovery: `list_envs()` and the first `make()` with 0, 50, 100 and 200 extra env packages.

Each count gets a directory of generated distributions (see fake_dists.py) on PYTHONPATH, on
top of everything already installed here (ms-swift's dependencies: over a hundred
distributions). Every measurement is a fresh interpreter that imports swift_gym, then times
one call with `time.perf_counter`: `list_envs()` in one process, `make("frozen_lake", seed=0)`
in another (the first call of a process: discovery, importing the env's module and pydantic,
validation), and that `make` again with pydantic imported beforehand, as it is in any ms-swift
process. The counts take turns; medians. The baseline is 0 extra distributions.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_timing import clean_environ, goal, median, ratio_row, run_python, write_json
from fake_dists import write_dists

COUNTS = (0, 50, 100, 200)
PROBE = """
import json, sys, time
import swift_gym
{setup}
start = time.perf_counter()
result = {call}
seconds = time.perf_counter() - start
count = len(result) if isinstance(result, list) else None
imported = sorted(m for m in sys.modules if m.startswith("bench_env_"))
print(json.dumps({{"seconds": seconds, "envs": count, "imported": imported}}))
"""
MAKE = 'swift_gym.make("frozen_lake", seed=0)'
CALLS = {
    "list_envs()": ("", "swift_gym.list_envs()"),
    "first make()": ("", MAKE),
    # inside ms-swift pydantic (lazy on `import pydantic`) is loaded long before any env is made
    "first make(), pydantic already loaded": ("from pydantic import BaseModel, Field", MAKE),
}

WHY = {
    "list_envs()": "importing importlib.metadata, pluggy and logging is most of it; then two "
    "scans of every installed distribution's entry points and two METADATA reads per env",
    "first make()": "the first make of a process imports pydantic (about 70 ms here, a constant "
    "that does not grow with the distributions); inside ms-swift pydantic is already imported: "
    "see the 'pydantic already loaded' rows",
    "first make(), pydantic already loaded": "see list_envs(): the same discovery, plus importing "
    "the env's module and building its config model",
}


def installed() -> int:
    from importlib.metadata import distributions

    return len({dist.metadata["Name"] for dist in distributions()})


def probe(call: tuple[str, str], path: Path) -> dict[str, Any]:
    env = clean_environ(PYTHONPATH=str(path))
    code = PROBE.format(setup=call[0], call=call[1])
    return json.loads(run_python(sys.executable, ["-c", code], env)[1])


def measure(runs: int) -> dict[str, Any]:
    seconds: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="swift-gym-dists-") as tmp:
        paths = {n: write_dists(Path(tmp) / f"n{n}", n) for n in COUNTS}
        envs_at = {n: probe(CALLS["list_envs()"], paths[n]) for n in COUNTS}  # also warms up
        for n, result in envs_at.items():
            if result["envs"] != envs_at[0]["envs"] + n or result["imported"]:
                raise AssertionError(f"{n} extra distributions: listing saw {result}")
        for index in range(runs):
            for n in COUNTS[index % 4 :] + COUNTS[: index % 4]:
                for label, call in CALLS.items():
                    result = probe(call, paths[n])
                    if result["imported"]:
                        raise AssertionError(f"{label} imported generated envs: {result}")
                    seconds.setdefault((label, n), []).append(result["seconds"])
    rows, goals = [], []
    for label in CALLS:
        ms = {n: median(seconds[(label, n)]) * 1e3 for n in COUNTS}
        rows += [
            ratio_row(f"{label}, {n} extra env distributions", ms[n], ms[0], "ms") for n in COUNTS
        ]
        first_half = (ms[100] - ms[0]) / 100
        second_half = (ms[200] - ms[100]) / 100
        under = f"{label} at 200 extra distributions < 100 ms"
        goals.append(goal(under, f"{ms[200]:.1f} ms", ms[200] < 100, WHY[label]))
        # linear growth: the cost of each of the second hundred is no more than of the first
        # (1.5x slack for noise, and at least 20 us: below that there is no growth to speak of)
        per_dist = (
            f"{first_half * 1e3:.0f} us per distribution for 0-100, "
            f"{second_half * 1e3:.0f} us for 100-200"
        )
        linear = second_half <= max(1.5 * first_half, 0.02)
        goals.append(goal(f"{label} grows no worse than linearly", per_dist, linear))
    return {
        "benchmark": "discovery",
        "repeats": runs,
        "detail": f"{runs} fresh interpreters per call and count, the counts in turns; medians. "
        f"Before any extra one: {installed()} distributions installed, "
        f"{envs_at[0]['envs']} env registered",
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.runs))


if __name__ == "__main__":
    main()
