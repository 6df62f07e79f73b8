"""An eval summary as a small table people read at a glance, and one line per env when the run
played more than one (the `PER_ENV_SHOWN` with most episodes, then how many more)."""

from __future__ import annotations

import math
from typing import Any

from rich.table import Table
from rich.text import Text

from ..evaluation.figures import figure
from . import visible
from .console import cells, print_trimmed, stdout

PER_ENV_SHOWN = 20
"""Envs the per-env table shows at most: those with most episodes (ties by name)."""


def _rate(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.1%}"


def _number(value: float, digits: int = 3) -> str:
    return figure(value, digits)


def _interval(pair: list[float]) -> str:
    low, high = pair
    return "" if math.isnan(low) else f"95% CI {_number(low)} to {_number(high)}"


def print_summary(
    summary: dict[str, Any],
    title: str,
    output: str | None,
    stopped: str | None = None,
    per_env: dict[str, dict[str, Any]] | None = None,
    cut_off: str | None = None,
) -> None:
    """Print `summary` (from `stats.summarize`) under `title`; `stopped`: why the run ended
    before its last episode; `per_env` (from `stats.summarize_per_env`): a table of them too,
    when it holds more than one env; `cut_off`: how many episodes the turn limit ended, and
    how to raise it."""
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
    rollouts = summary.get("rollouts")
    if rollouts:
        add_rollout_rows(table, rollouts)
    out = stdout()
    print_trimmed(table)
    for error, count in summary["errors"].items():
        out.print(Text.assemble((f"  {count} x ", "red"), visible.rich(error)))
    if cut_off:
        out.print(Text(cut_off, style="yellow"))
    if per_env is not None and len(per_env) > 1:
        print_per_env(per_env)
    if stopped:
        out.print(Text.assemble(("stopped early: ", "bold red"), visible.rich(stopped)))
    if output:
        out.print(visible.rich(f"trajectories: {output}"))
    else:
        out.print("[dim]trajectories not kept: pass -o FILE.jsonl to keep them[/]")


def add_rollout_rows(table: Table, rollouts: dict[str, Any]) -> None:
    """pass@k (over the seeds with k rollouts played) and how a seed's rollouts agree."""
    seeds, per_seed = rollouts["seeds"], rollouts["rollouts_per_seed"]
    counted = rollouts["pass_at_k_seeds"]
    for k, value in rollouts["pass_at_k"].items():
        fewer = f"; over the {counted[k]} seeds with {k} played" if counted[k] != seeds else ""
        table.add_row(f"pass@{k}", _number(value), f"{per_seed} rollouts per seed{fewer}")
    table.add_row(
        "seeds solved",
        f"{rollouts['solved_by_any']} of {seeds}",
        f"by some rollout; {rollouts['solved_by_all']} by every one",
    )
    table.add_row(
        "per-seed spread",
        _number(rollouts["mean_seed_success_std"]),
        "mean over seeds of the std of their rollouts' success",
    )


def print_per_env(per_env: dict[str, dict[str, Any]]) -> None:
    """One line per env: episodes, success rate and its Wilson 95% interval, mean reward and
    turns, invalid-action rate and failed episodes; at most `PER_ENV_SHOWN` envs."""
    ranked = sorted(per_env.items(), key=lambda item: (-item[1]["episodes"], item[0]))
    table = Table(
        "env", "episodes", "success", "95% CI", "reward", "turns", "invalid", "failed",
        title="per env: success rate (Wilson 95% CI), mean reward, mean turns, invalid actions",
        title_justify="left", box=None, pad_edge=False, collapse_padding=True,
    )  # fmt: skip
    table.columns[0].overflow = "fold"  # a long name wraps, never cut
    for column in table.columns[1:]:
        column.justify = "right"
        column.no_wrap = True
    for env, summary in ranked[:PER_ENV_SHOWN]:
        low, high = summary["success_rate_ci95"]
        failed = summary["failed_episodes"]
        table.add_row(
            *cells(env, summary["episodes"]),
            _number(summary["success_rate"]),
            "" if math.isnan(low) else f"{_number(low)}-{_number(high)}",
            _number(summary["mean_reward"]),
            _number(summary["mean_turns"], 2),
            _rate(summary["invalid_action_rate"]),
            Text(str(failed), style="red" if failed else ""),
        )
    out = stdout()
    print_trimmed(table)
    more = len(ranked) - PER_ENV_SHOWN
    if more > 0:
        out.print(
            Text(
                f"and {more} more env{'s' if more > 1 else ''} with fewer episodes "
                "(--json has them all)",
                style="dim",
            )
        )
