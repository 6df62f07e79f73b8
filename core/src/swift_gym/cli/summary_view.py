"""An eval summary as a small table people read at a glance."""

from __future__ import annotations

import math
from typing import Any

from rich.table import Table
from rich.text import Text

from . import visible
from .console import stdout


def _rate(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.1%}"


def _number(value: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def _interval(pair: list[float]) -> str:
    low, high = pair
    return "" if math.isnan(low) else f"95% CI {low:.3f} to {high:.3f}"


def print_summary(
    summary: dict[str, Any], title: str, output: str | None, stopped: str | None = None
) -> None:
    """Print `summary` (from `stats.summarize`) under `title`; `stopped`: why the run ended
    before its last episode."""
    n = summary["episodes"]
    successes = round(summary["success_rate"] * n) if n else 0
    table = Table(
        box=None, show_header=False, title=visible.rich(title), title_justify="left", pad_edge=False
    )
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_column(style="dim")
    table.add_row(
        "success rate",
        _number(summary["success_rate"]),
        f"{successes} of {n}; {_interval(summary['success_rate_ci95'])}",
    )
    table.add_row(
        "mean reward", _number(summary["mean_reward"]), _interval(summary["mean_reward_ci95"])
    )
    table.add_row("mean turns", _number(summary["mean_turns"], 2), "")
    table.add_row("invalid actions", _rate(summary["invalid_action_rate"]), "of replies")
    statuses = ", ".join(f"{status} {count}" for status, count in summary["statuses"].items())
    table.add_row("statuses", "", visible.rich(statuses))
    failed = summary["failed_episodes"]
    table.add_row(
        "failed episodes",
        Text(str(failed), style="red" if failed else "green"),
        "env or policy error",
    )
    if summary.get("not_played"):
        table.add_row("not played", str(summary["not_played"]), "not in the rates above")
    out = stdout()
    out.print(table)
    for error, count in summary["errors"].items():
        out.print(Text.assemble((f"  {count} x ", "red"), visible.rich(error)))
    if stopped:
        out.print(Text.assemble(("stopped early: ", "bold red"), visible.rich(stopped)))
    if output:
        out.print(visible.rich(f"trajectories: {output}"))
    else:
        out.print("[dim]trajectories not kept: pass -o FILE.jsonl to keep them[/]")
