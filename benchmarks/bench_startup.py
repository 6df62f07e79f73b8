"""Start-up: what the start-up hook adds to every Python process, and what `import swift_gym` costs.

Hook: throwaway venvs made from this interpreter (`--without-pip`, nothing else in them) that
differ only by the two files the swift-gym wheel puts at the root of site-packages
(`swift_gym_autoload.pth`, `_swift_gym_autoload.py`, copied from this environment's installed
distribution). One has the module's `.pyc` compiled, as `pip install` does; one has none, as
after `uv pip install` (no bytecode by default) under `PYTHONDONTWRITEBYTECODE=1`, where every
process compiles the module again. `python -c pass` runs in each venv in turn; the hook's cost
is the median of the paired differences against the venv without it. `-X importtime`'s self
time of `_swift_gym_autoload` in this environment is reported too.

`import swift_gym`: `python -c "import swift_gym"` against `python -c pass`, both in this
environment and run in turn; plus which heavy modules the import loaded.
"""

from __future__ import annotations

import argparse
import json
import py_compile
import re
import shutil
import subprocess
import sys
import tempfile
import venv
from importlib.metadata import distribution
from pathlib import Path
from typing import Any

from bench_timing import clean_environ, goal, median, ratio_row, run_python, write_json

HOOK_FILES = ("swift_gym_autoload.pth", "_swift_gym_autoload.py")
HEAVY = ("swift", "torch", "transformers", "pydantic", "pluggy", "importlib.metadata")
WARMUP = 3


def hook_files() -> list[Path]:
    """The hook's files as installed here (from the RECORD of the swift-gym distribution)."""
    dist = distribution("swift-gym")
    found = [Path(str(dist.locate_file(f))) for f in dist.files or [] if f.name in HOOK_FILES]
    if len(found) != len(HOOK_FILES):
        raise RuntimeError(f"swift-gym's start-up hook is not installed here: found {found}")
    return found


def make_venv(root: Path, hook: bool, compiled: bool = True) -> Path:
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
    python = root / "bin" / "python"
    if hook:
        site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for path in hook_files():
            shutil.copy2(path, site)
            if compiled and path.suffix == ".py":
                py_compile.compile(str(Path(site) / path.name), doraise=True)
    return python


def in_turn(commands: dict[str, list[str]], runs: int, env: dict[str, str]) -> dict[str, list]:
    """Wall seconds of each command, `runs` times, the commands taking turns (order rotated)."""
    names = list(commands)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(runs + WARMUP):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            seconds, _ = run_python(commands[name][0], commands[name][1:], env)
            if index >= WARMUP:  # the first runs warm the page cache
                times[name].append(seconds)
    return times


def added(times: list[float], baseline: list[float]) -> float:
    """Median of the paired differences: each run against the baseline run of its round."""
    return median([t - b for t, b in zip(times, baseline, strict=True)])


def importtime_self_us(python: str, module: str, env: dict[str, str]) -> float:
    """Self time of `module`'s import (microseconds) in `-X importtime`'s report of start-up."""
    result = subprocess.run(
        [python, "-X", "importtime", "-c", "pass"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    for line in result.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|\s+(\S+)$", line.strip())
        if match and match.group(3) == module:
            return float(match.group(1))
    raise RuntimeError(f"{module} was not imported at start-up:\n{result.stderr[-1000:]}")


def row(measure: str, ours: list[float], baseline: list[float]) -> dict[str, Any]:
    return ratio_row(measure, median(ours) * 1e3, median(baseline) * 1e3, "ms")


def hook_cost(runs: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    env = clean_environ(PYTHONDONTWRITEBYTECODE="1")  # keep the no-.pyc venv without one
    with tempfile.TemporaryDirectory(prefix="swift-gym-bench-") as tmp:
        pythons = {
            "plain": make_venv(Path(tmp) / "plain", hook=False),
            "hook": make_venv(Path(tmp) / "hook", hook=True),
            "hook, no .pyc": make_venv(Path(tmp) / "nopyc", hook=True, compiled=False),
        }
        times = in_turn({k: [str(p), "-c", "pass"] for k, p in pythons.items()}, runs, env)
    rows = [
        row(
            "python -c pass, venv with the hook (.pyc, as pip installs)",
            times["hook"],
            times["plain"],
        ),
        row("python -c pass, venv with the hook, no .pyc", times["hook, no .pyc"], times["plain"]),
    ]
    cost = added(times["hook"], times["plain"])
    goals = [
        goal(
            "start-up hook adds < 1 ms (median paired difference, pip install)",
            f"{cost * 1e3:+.2f} ms",
            cost < 1e-3,
        )
    ]
    here = median(
        [importtime_self_us(sys.executable, "_swift_gym_autoload", env) for _ in range(15)]
    )
    goals.append(
        goal(
            "start-up hook: -X importtime self time in the bench environment < 1 ms",
            f"{here / 1e3:.2f} ms",
            here < 1e3,
        )
    )
    return rows, goals


def import_cost(runs: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    env = clean_environ()
    python = sys.executable
    times = in_turn(
        {"import": [python, "-c", "import swift_gym"], "pass": [python, "-c", "pass"]}, runs, env
    )
    cost = added(times["import"], times["pass"])
    probe = (
        "import swift_gym, sys, json; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    loaded = json.loads(run_python(python, ["-c", probe], env)[1])
    rows = [row("python -c 'import swift_gym' vs python -c pass", times["import"], times["pass"])]
    goals = [
        goal("import swift_gym < 50 ms", f"{cost * 1e3:.1f} ms", cost < 0.05),
        goal(
            "import swift_gym imports no ms-swift (nor torch, pydantic, pluggy)",
            "loaded: " + (", ".join(loaded) or "none of them"),
            not loaded,
        ),
    ]
    return rows, goals


def measure(runs: int) -> dict[str, Any]:
    hook_rows, hook_goals = hook_cost(runs)
    import_rows, import_goals = import_cost(runs)
    return {
        "benchmark": "start-up",
        "repeats": runs,
        "detail": f"{runs} fresh interpreters per command, the commands in turns; medians",
        "rows": hook_rows + import_rows,
        "goals": hook_goals + import_goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.runs))


if __name__ == "__main__":
    main()
