"""One plugin registering a family of 10,000 and of 100,000 envs: listing and unknown names.

A hook plugin (a generated distribution on PYTHONPATH, see fake_dists.write_family) registers N
envs in a loop, as a plugin making levels from data files would. Each measurement is a fresh
`swift-gym` process, timed from outside: `swift-gym list` (its stdout discarded), and
`swift-gym info` of a misspelt name, which makes an unknown-env error with a did-you-mean.
The two sizes take turns; medians. Linear work costs 10 times more at 100,000 than at 10,000;
rich's Table, a METADATA read per env and difflib over every name made it 35 to 50 s, and the
error listed every name (1.2 MB).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_timing import clean_environ, goal, median, ratio_row, write_json
from fake_dists import write_family

SIZES = (10_000, 100_000)
COMMAND = Path(sys.executable).parent / "swift-gym"
CALLS = {"swift-gym list": ["list"], "unknown env (info level_0424x)": ["info", "level_0424x"]}


def measure_once(args: list[str], path: Path) -> tuple[float, int]:
    """(wall seconds, bytes written) of one `swift-gym ARGS`."""
    env = clean_environ(PYTHONPATH=str(path), COLUMNS="120", NO_COLOR="1")
    start = time.perf_counter()
    result = subprocess.run([str(COMMAND), *args], capture_output=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 2):
        raise RuntimeError(f"swift-gym {' '.join(args)} failed:\n{result.stderr[-2000:]!r}")
    return elapsed, len(result.stdout) + len(result.stderr)


def measure(runs: int) -> dict[str, Any]:
    seconds: dict[tuple[str, int], list[float]] = {}
    size_of: dict[tuple[str, int], int] = {}
    with tempfile.TemporaryDirectory(prefix="swift-gym-family-") as tmp:
        paths = {n: write_family(Path(tmp) / f"n{n}", n) for n in SIZES}
        for index in range(runs):
            for n in SIZES[index % 2 :] + SIZES[: index % 2]:
                for label, args in CALLS.items():
                    elapsed, written = measure_once(args, paths[n])
                    seconds.setdefault((label, n), []).append(elapsed)
                    size_of[(label, n)] = written
    rows, goals = [], []
    small, large = SIZES
    for label in CALLS:
        ms = {n: median(seconds[(label, n)]) * 1e3 for n in SIZES}
        rows.append(ratio_row(f"{label}, {large:,} envs vs {small:,}", ms[large], ms[small], "ms"))
        growth = ms[large] / ms[small]
        goals.append(
            goal(
                f"{label} grows no worse than linearly (ratio <= {large // small})",
                f"{growth:.1f}x for {large // small}x the envs",
                growth <= large / small,
            )
        )
    error_bytes = size_of[("unknown env (info level_0424x)", large)]
    goals.append(
        goal(
            f"an unknown-env message among {large:,} envs stays under 1 kB",
            f"{error_bytes} bytes",
            error_bytes < 1000,
        )
    )
    return {
        "benchmark": "many envs",
        "repeats": runs,
        "detail": f"{runs} fresh swift-gym processes per call and size, the sizes in turns; "
        "medians. Processes include interpreter start-up and swift-gym's imports",
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.runs))


if __name__ == "__main__":
    main()
