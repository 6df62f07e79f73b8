"""Renders the benchmarks' JSON results and the machine they ran on as RESULTS.md."""

from __future__ import annotations

import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

PACKAGES = ("swift-gym", "swift-gym-frozen-lake", "ms-swift", "torch", "pydantic", "pluggy")


def _first(path: str, key: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def machine() -> dict[str, str]:
    """What the ratios were measured on."""
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    return {
        "CPU": _first("/proc/cpuinfo", "model name"),
        "cores": str(os.cpu_count()),
        "memory": _first("/proc/meminfo", "MemTotal"),
        "OS": platform.platform(),
        "Python": sys.version.split()[0] + f" ({platform.python_implementation()})",
        "packages": ", ".join(versions),
    }


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def render(results: list[dict[str, Any]], command: str, seconds: float, when: str) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Written by `{command}` on {when}; the whole run took {seconds:.0f} s.",
        "Every number is a median over repeats; each ratio is swift-gym's value over a baseline",
        "measured in the same run, in turns with it. See README.md here for each method.",
        "",
        "| machine | |",
        "| --- | --- |",
    ]
    lines += [f"| {key} | {value} |" for key, value in machine().items()]
    summary = [goal for result in results for goal in result["goals"]]
    met = sum(1 for goal in summary if goal["met"])
    lines += ["", f"**Goals: {met} of {len(summary)} met.**", ""]
    for result in results:
        lines += [
            f"## {result['benchmark']}",
            "",
            f"{result['detail']}.",
            "",
            "| measure | swift-gym | baseline | unit | ratio |",
            "| --- | ---: | ---: | --- | ---: |",
        ]
        for row in result["rows"]:
            lines.append(
                f"| {row['measure']} | {_number(row['ours'])} | {_number(row['baseline'])} | "
                f"{row['unit']} | {row['ratio']:.2f}x |"
            )
        lines += ["", "| goal | measured | met |", "| --- | --- | --- |"]
        for goal in result["goals"]:
            lines.append(f"| {goal['goal']} | {goal['value']} | {'yes' if goal['met'] else 'NO'} |")
        reasons: dict[str, list[str]] = {}
        for goal in result["goals"]:
            if not goal["met"] and goal.get("why"):
                reasons.setdefault(goal["why"], []).append(goal["goal"])
        for why, missed in reasons.items():
            lines += ["", f"Missed: {'; '.join(missed)}. Why: {why}"]
        lines.append("")
    return "\n".join(lines)
