"""Repeated measurements, medians and ratios: the only numbers the benchmarks report.

Raw timings depend on the machine; a ratio against a baseline measured in the same run, with
the two interleaved, mostly does not.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def interleaved(
    runs: dict[str, Callable[[], float]], repeats: int, *, warmup: int = 1
) -> dict[str, list[float]]:
    """Each run's result `repeats` times, the runs taking turns (order rotated each round).

    Rotating cancels drift (CPU frequency, a neighbour's load) between the things compared.
    """
    names = list(runs)
    for _ in range(warmup):
        for name in names:
            runs[name]()
    results: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            results[name].append(runs[name]())
    return results


def paired_ratio(ours: Sequence[float], baseline: Sequence[float]) -> float:
    """The median of each round's ratio (the two measured back to back): a neighbour's load on
    a shared machine shifts it far less than it shifts either side's median."""
    return median([a / b for a, b in zip(ours, baseline, strict=True)])


def timed(function: Callable[[], Any]) -> float:
    """Wall seconds of one call."""
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def run_python(
    python: str | Path, args: Sequence[str], env: dict[str, str] | None = None
) -> tuple[float, str]:
    """(wall seconds, stdout) of one fresh interpreter; raises on a non-zero exit."""
    start = time.perf_counter()
    result = subprocess.run(
        [str(python), *args], capture_output=True, text=True, env=env, check=False
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{python} {' '.join(args)} failed:\n{result.stderr[-2000:]}")
    return elapsed, result.stdout


def clean_environ(**extra: str) -> dict[str, str]:
    """os.environ without swift-gym's switches, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    env.update(extra)
    return env


def write_json(path: str | None, data: dict[str, Any]) -> None:
    """The benchmark's result for run.py, or printed when run by hand."""
    text = json.dumps(data, indent=2)
    if path:
        Path(path).write_text(text)
    else:
        print(text)


def ratio_row(measure: str, ours: float, baseline: float, unit: str) -> dict[str, Any]:
    """One line of a results table: a measure, its baseline and their ratio."""
    return {
        "measure": measure,
        "ours": ours,
        "baseline": baseline,
        "unit": unit,
        "ratio": ours / baseline,
    }


def goal(text: str, value: str, met: bool, why: str = "") -> dict[str, Any]:
    """A goal of the issue, what was measured, and why it was missed (shown only if it was)."""
    return {"goal": text, "value": value, "met": met, "why": why}


def without_sandbox(benchmark: str, error: BaseException) -> dict[str, Any]:
    """The result of a sandbox benchmark where bubblewrap cannot run: said on stderr, no rows."""
    print(f"{benchmark}: nothing measured: {error}", file=sys.stderr)
    return {
        "benchmark": benchmark,
        "repeats": 0,
        "detail": "not measured: bubblewrap cannot run here (see the sandbox docs)",
        "rows": [],
        "goals": [],
    }
