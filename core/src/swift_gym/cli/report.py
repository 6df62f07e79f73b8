"""`swift-gym report`: one self-contained HTML page of an eval run's numbers and charts.

The page has no script and loads nothing. Every text from the file (env names, policies,
statuses, seeds, the file's name) is HTML-escaped and has its controls and invisible characters
spelled out (`visible.html`), so no record can add markup to the page or hide in it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import click

from .. import __version__
from ..evaluation.stats import summarize
from ..output_files import describe, open_output
from . import visible
from .console import stderr
from .errors import CommandError
from .svg import bar_chart, data_text, histogram_bins, status_colour, status_strip
from .trajectories import read_trajectories
from .transcript import plural

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1100px; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
svg { font-family: system-ui, sans-serif; }
.esc { color: #a00; background: #fee; font-family: monospace; }
"""


def escape(value: Any) -> str:
    """Data as HTML text: escaped, controls and invisible characters spelled out and marked."""
    return visible.html(value if isinstance(value, str) else visible.brief(value, 200))


def _seed_order(record: dict[str, Any]) -> tuple[int, float, str]:
    """Numeric seeds in order, then the rest (none, text) by their text: never a TypeError."""
    seed = record.get("seed")
    if isinstance(seed, (int, float)) and not isinstance(seed, bool) and seed == seed:
        return (0, seed, "")
    return (1, 0.0, visible.brief(seed, 200))


def _number(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def _summary_table(summary: dict[str, Any]) -> str:
    low, high = summary["mean_reward_ci95"]
    rate_low, rate_high = summary["success_rate_ci95"]
    rows = [
        ("episodes", str(summary["episodes"])),
        ("success rate", f"{_number(summary['success_rate'])} "
         f"(95% CI {_number(rate_low)} to {_number(rate_high)})"),
        ("mean reward", f"{_number(summary['mean_reward'])} "
         f"(95% CI {_number(low)} to {_number(high)})"),
        ("mean turns", _number(summary["mean_turns"], 2)),
        ("invalid-action rate", _number(summary["invalid_action_rate"])),
        ("failed episodes", str(summary["failed_episodes"])),
    ]  # fmt: skip
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def _per_env_table(by_env: dict[str, list[dict[str, Any]]]) -> str:
    head = "<tr><th>env</th><th>episodes</th><th>success rate</th><th>mean reward</th>" \
        "<th>mean turns</th><th>failed</th></tr>"  # fmt: skip
    rows = []
    for env, records in sorted(by_env.items()):
        s = summarize(records)
        cells = [
            str(s["episodes"]),
            _number(s["success_rate"]),
            _number(s["mean_reward"]),
            _number(s["mean_turns"], 2),
            str(s["failed_episodes"]),
        ]
        rows.append(
            f"<tr><td>{escape(env)}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def render_report(records: list[dict[str, Any]], source: str) -> str:
    """The HTML page for `records`, read from `source`."""
    summary = summarize(records)
    statuses = list(summary["statuses"])
    charts = [
        bar_chart(
            "episodes by final status",
            statuses,
            [summary["statuses"][s] for s in statuses],
            [status_colour(s, statuses) for s in statuses],
        ),
        bar_chart(
            "total reward per episode",
            *histogram_bins([float(r.get("total_reward") or 0) for r in records]),
        ),
        bar_chart(
            "turns per episode", *histogram_bins([int(r.get("num_turns") or 0) for r in records])
        ),
    ]
    by_env: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_env[visible.brief(record.get("env"), 200)].append(record)
    strips = []
    for env, env_records in sorted(by_env.items()):
        ordered = sorted(env_records, key=_seed_order)
        cells = [
            (
                f"seed {visible.brief(r.get('seed'))} (episode {visible.brief(r.get('index'))}): "
                f"{visible.brief(r.get('status'))}, reward {visible.brief(r.get('total_reward'))}, "
                f"{plural(r.get('num_turns'), 'turn')}",
                str(r.get("status")),
            )
            for r in ordered
        ]
        strips.append(status_strip(f"{env}: status by seed", cells, statuses))
    policies = sorted({visible.brief(r.get("policy"), 200) for r in records})
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>swift-gym report: {data_text(source)}</title><style>{_STYLE}</style></head>
<body>
<h1>swift-gym eval report</h1>
<p>{escape(source)}: {len(records)} episodes, policy {escape(", ".join(policies))},
envs {escape(", ".join(sorted(by_env)))}. Made by swift-gym {escape(__version__)}.</p>
{_summary_table(summary)}
<h2>Per env</h2>
{_per_env_table(by_env)}
<h2>Distributions</h2>
<div class="charts">{"".join(charts)}</div>
<h2>Status by seed</h2>
{"".join(strips)}
</body></html>
"""


@click.command()
@click.argument("trajectories", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    help="HTML file to write ('-': stdout) [default: TRAJECTORIES with .html].",
)  # fmt: skip
def report(trajectories: Path, output: Path | None) -> None:
    """Write a self-contained HTML report (summary, reward, turns, status by seed and env)."""
    records = list(read_trajectories(trajectories))
    if not records:
        raise CommandError(f"{trajectories} holds no episodes")
    output = output or trajectories.with_suffix(".html")
    with open_output(output) as file:
        file.write(render_report(records, trajectories.name))
    stderr().print(visible.rich(f"wrote {describe(output)} ({len(records)} episodes)"))
