"""The report page: runs side by side, their differences, learning curves, every episode.

One self-contained HTML file: no request leaves it (its Content-Security-Policy allows no
source at all, only its own inline style and the one script of `episode_browser`, by hash), so
it can be mailed or attached to an issue. Every text from the files (env names, policies,
statuses, seeds, replies, the files' names) is escaped with its controls and invisible
characters spelled out (`visible.html`), so no record can add markup to the page or hide in it.

With several runs, the first is the baseline and each other run is compared with it: the
difference of success rates and of mean rewards, with 95% intervals and whether they leave out
0 (see `evaluation.compare`). Charts are `svg`'s (why not a plotting library: see there).

A status has one colour in every chart of the page (`svg.status_colours`), each square of a
status strip links to its episode in the browser below, when the page holds it. Reward
intervals come clipped to the rewards seen (`evaluation.stats.summarize`, as `eval` prints
them), a difference's to where those ranges allow, and a mean reward over envs of different
reward scales is flagged (`evaluation.reward_ranges`). The page reads on a phone: a viewport,
charts that shrink to the screen, tables that scroll on their own.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from .. import __version__
from ..evaluation.compare import Difference, differences
from ..evaluation.curves import STEP, Curve, Point, run_curves
from ..evaluation.figures import figure
from ..evaluation.groups import group_labels
from ..evaluation.reward_ranges import (
    Range,
    clip,
    difference_bounds,
    mixed_scales,
    overall,
    reward_ranges,
)
from ..evaluation.stats import summarize
from . import visible
from .episode_browser import browser, escape, pick, script_hash
from .runs import Run
from .svg import (
    PALETTE,
    Cell,
    Series,
    bar_chart,
    data_text,
    histogram_bins,
    line_chart,
    status_colours,
    status_strip,
)
from .visible import plural

STRIP_CELLS = 2000
"""Episodes one status-by-seed strip shows at most."""
ENVS_SHOWN = 50
"""Rows of the per-env table at most (the envs with most episodes)."""

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1200px; }
@media (max-width: 600px) { body { margin: 0.6em; } h1 { font-size: 1.5em; } }
.table { overflow-x: auto; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
#runs td, #runs th { text-align: left; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
svg { font-family: system-ui, sans-serif; max-width: 100%; height: auto; }
.warn { background: #fff4e0; border-left: 4px solid #f28e2b; padding: 0.4em 0.8em; }
.esc { color: #a00; background: #fee; font-family: monospace; }
.sig { color: #080; font-weight: bold; }
.sig.worse { color: #b00; }
.ns, .note, .none, .cut { color: #777; }
.ci { color: #777; font-size: 0.85em; display: block; }
.filters { position: sticky; top: 0; background: #fff; padding: 0.5em 0; display: flex;
  flex-wrap: wrap; gap: 0.5em 1.5em; align-items: center; border-bottom: 1px solid #ddd; }
select { max-width: 100%; }
details.episode { border: 1px solid #ddd; border-radius: 4px; margin: 0.4em 0;
  padding: 0.3em 0.6em; }
details.episode > summary { cursor: pointer; overflow-wrap: anywhere; }
details.episode:target { outline: 2px solid #4e79a7; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 0.5em;
  margin: 0.2em 0; }
h4 { margin: 0.6em 0 0.1em; font-size: 0.9em; color: #555; }
.turn { border-left: 3px solid #4e79a7; padding-left: 0.6em; margin: 0.6em 0; }
.facts, .info, .call, .tools { font-size: 0.85em; margin: 0.2em 0; font-family: monospace; }
.bad, .error { color: #b00; }
"""


def _number(value: Any, digits: int = 3) -> str:
    return figure(value, digits)


def _interval(pair: Sequence[float]) -> str:
    """An interval as `summarize` gives it (a mean reward's: already within the rewards seen)."""
    low, high = pair
    if math.isnan(low):
        return ""
    return f'<span class="ci">95% CI {figure(low)} to {figure(high)}</span>'


def _difference(diff: Difference) -> str:
    """A difference with its interval and verdict, as a table cell's content."""
    if math.isnan(diff.difference):
        return "n/a"
    if not diff.known:
        shown = figure(diff.difference, signed=True)
        return f"{shown}<span class='ci'>too few episodes to tell</span>"
    if diff.significant:
        better = diff.difference > 0
        verdict = f'<span class="sig{"" if better else " worse"}">significant</span>'
    else:
        verdict = '<span class="ns">not significant</span>'
    return (
        f"{figure(diff.difference, signed=True)} {verdict}"
        f'<span class="ci">95% CI {figure(diff.low, signed=True)} to '
        f"{figure(diff.high, signed=True)}</span>"
    )


def _runs_table(runs: Sequence[Run]) -> str:
    head = "<tr><th>run</th><th>from</th><th>kind</th><th>episodes</th><th>envs</th>" \
        "<th>policies</th></tr>"  # fmt: skip
    rows = []
    for run in runs:
        envs = sorted({visible.brief(r.get("env"), 200) for r in run.records})
        policies = sorted({visible.brief(r.get("policy"), 200) for r in run.records})
        shown_envs = ", ".join(envs[:10]) + (
            f" and {len(envs) - 10} more" if len(envs) > 10 else ""
        )
        rows.append(
            f"<tr><td><b>{escape(run.label)}</b></td><td>{escape(run.source, 300)}</td>"
            f"<td>{'training' if run.training else 'eval'}</td><td>{len(run.records):,}</td>"
            f"<td>{escape(shown_envs, 600)}</td><td>{escape(', '.join(policies), 300)}</td></tr>"
        )
    return f'<table id="runs">{head}{"".join(rows)}</table>'


def _header(runs: Sequence[Run]) -> str:
    """A column per run, then one per difference from the baseline (`B - A`)."""
    base = escape(runs[0].label)
    cells = [f"<th>run {escape(run.label)}</th>" for run in runs]
    cells += [f"<th>{escape(run.label)} &minus; {base}</th>" for run in runs[1:]]
    return "".join(cells)


def _bounded(diff: Difference, bounds: Range | None) -> Difference:
    """A difference with its interval clipped to where it can lie."""
    low, high = clip([diff.low, diff.high], bounds)
    return dataclasses.replace(diff, low=low, high=high)


def _summary_table(
    runs: Sequence[Run], summaries: Sequence[Mapping[str, Any]], ranges: Sequence[Range | None]
) -> str:
    base = summaries[0]
    others = list(zip(runs[1:], summaries[1:], strict=True))
    head = f"<tr><th>measure</th>{_header(runs)}</tr>"

    def row(name: str, cells: list[str], diffs: list[str] | None = None) -> str:
        diffs = diffs if diffs is not None else ["" for _ in others]
        return f"<tr><th>{name}</th>" + "".join(f"<td>{c}</td>" for c in cells + diffs) + "</tr>"

    rate_diffs = [differences(base, s) for _, s in others]
    reward_diffs = [
        _bounded(d[1], difference_bounds(ranges[0], bounds))
        for d, bounds in zip(rate_diffs, ranges[1:], strict=True)
    ]
    rows = [
        row("episodes", [f"{s['episodes']:,}" for s in summaries]),
        row(
            "success rate",
            [_number(s["success_rate"]) + _interval(s["success_rate_ci95"]) for s in summaries],
            [_difference(d[0]) for d in rate_diffs],
        ),
        row(
            "mean reward",
            [_number(s["mean_reward"]) + _interval(s["mean_reward_ci95"]) for s in summaries],
            [_difference(d) for d in reward_diffs],
        ),
        *_rollout_rows(summaries, row),
        row("mean turns", [_number(s["mean_turns"], 2) for s in summaries]),
        row("invalid-action rate", [_number(s["invalid_action_rate"]) for s in summaries]),
        row("failed episodes", [str(s["failed_episodes"]) for s in summaries]),
        row("not played", [str(s["not_played"]) for s in summaries]),
        row(
            "statuses",
            [
                escape(", ".join(f"{k} {v}" for k, v in s["statuses"].items()), 400)
                for s in summaries
            ],
        ),
    ]
    return f'<table id="summary">{head}{"".join(rows)}</table>'


def _rollout_rows(summaries: Sequence[Mapping[str, Any]], row: Any) -> list[str]:
    """pass@k and the per-seed spread, for runs that played several rollouts per seed (a run
    without them shows "—"); none at all when no run did."""
    rollouts = [s.get("rollouts") or None for s in summaries]
    if not any(rollouts):
        return []
    ks = sorted({int(k) for r in rollouts if r for k in r["pass_at_k"]})

    def cells(show: Any) -> list[str]:
        return [show(r) if r else "—" for r in rollouts]

    def pass_cell(r: Mapping[str, Any], k: int) -> str:
        value = r["pass_at_k"].get(str(k))
        if value is None:
            return "—"
        seeds = r["pass_at_k_seeds"][str(k)]
        return f"{_number(value)}<span class='ci'>over {plural(seeds, 'seed')}</span>"

    rows = [
        row(
            "rollouts per seed",
            cells(lambda r: f"{r['rollouts_per_seed']} &times; {plural(r['seeds'], 'seed')}"),
        )
    ]
    rows += [row(f"pass@{k}", cells(lambda r, k=k: pass_cell(r, k))) for k in ks]
    rows.append(
        row(
            "seeds solved",
            cells(
                lambda r: (
                    f"{r['solved_by_any']:,} of {r['seeds']:,} by some rollout"
                    f"<span class='ci'>{r['solved_by_all']:,} by every one</span>"
                )
            ),
        )
    )
    rows.append(
        row(
            "per-seed spread",
            cells(
                lambda r: (
                    _number(r["mean_seed_success_std"])
                    + "<span class='ci'>mean std of a seed's rollouts' success</span>"
                )
            ),
        )
    )
    return rows


def _per_env_table(runs: Sequence[Run]) -> str:
    groups: list[dict[str, list[dict[str, Any]]]] = []
    totals: dict[str, int] = defaultdict(int)
    labels = iter(group_labels(record for run in runs for record in run.records))
    for run in runs:
        by_env: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in run.records:
            name = visible.brief(next(labels), 200)  # env and config, alike across runs
            by_env[name].append(record)
            totals[name] += 1
        groups.append(by_env)
    envs = sorted(totals, key=lambda env: (-totals[env], env))
    shown = sorted(envs[:ENVS_SHOWN])
    head = f"<tr><th>env</th>{_header(runs)}</tr>"
    rows = []
    for env in shown:
        env_groups = [group.get(env, []) for group in groups]
        summaries = [summarize(group) for group in env_groups]
        bounds = [overall(reward_ranges(group).values()) for group in env_groups]
        cells = [
            f"{_number(s['success_rate'])} success, reward {_number(s['mean_reward'])}"
            f"<span class='ci'>{plural(s['episodes'], 'episode')}; rate 95% CI "
            f"{_number(s['success_rate_ci95'][0])} to {_number(s['success_rate_ci95'][1])}</span>"
            if s["episodes"]
            else "—"
            for s in summaries
        ]
        for s, other in zip(summaries[1:], bounds[1:], strict=True):
            if s["episodes"] and summaries[0]["episodes"]:
                rate, reward = differences(summaries[0], s)
                reward = _bounded(reward, difference_bounds(bounds[0], other))
                cells.append(f"success {_difference(rate)}<br>reward {_difference(reward)}")
            else:
                cells.append("—")
        rows.append(f"<tr><td>{escape(env)}</td>" + "".join(f"<td>{c}</td>" for c in cells))
    more = (
        f'<p class="note">The {ENVS_SHOWN} envs with most episodes of {len(envs)}.</p>'
        if len(envs) > ENVS_SHOWN
        else ""
    )
    return f'<table id="per-env">{head}{"".join(rows)}</table>{more}'


def _where(point: Point, axis: str) -> str:
    """A point's x as its tooltip says it: `step 3`, `steps 20 to 24`, `12 s to 18 s`."""
    unit = ("step ", "steps ", "") if axis == STEP else ("", "", " s")
    if point.low == point.high:
        return f"{unit[0]}{point.low:g}{unit[2]}"
    return f"{unit[1]}{point.low:.4g}{unit[2]} to {point.high:.4g}{unit[2]}"


def _curve_series(
    curves: Sequence[tuple[str, Curve]],
    measure: str,
    band_for: str | None,
) -> list[Series]:
    """The curves' points of `measure`, the one named `band_for` with its interval (a mean
    reward's already within the rewards seen at that point: `summarize`)."""
    series: list[Series] = []
    for k, (name, curve) in enumerate(curves[: len(PALETTE)]):
        points: list[tuple[float, float, float, float, str]] = []
        for point in curve.points:
            s = point.summary
            value = s[measure]
            low, high = s[f"{measure}_ci95"] if name == band_for else (math.nan, math.nan)
            points.append((point.x, value, low, high, _where(point, curve.axis)))
        series.append((name, PALETTE[k], points))
    return series


def _curve_charts(
    title: str,
    curves: Sequence[tuple[str, Curve]],
    band_for: str | None,
) -> str:
    """Success rate and mean reward over training, with the band of `band_for`'s curve."""
    axis = curves[0][1].axis
    x_label = "training step" if axis == STEP else axis
    more = len(curves) - len(PALETTE)
    note = f" (first {len(PALETTE)} of {len(curves)} series)" if more > 0 else ""
    return line_chart(
        f"success rate over training{title}{note}",
        _curve_series(curves, "success_rate", band_for),
        x_label,
        (0.0, 1.0),
    ) + line_chart(
        f"mean reward over training{title}{note}",
        _curve_series(curves, "mean_reward", band_for),
        x_label,
    )


def _learning_curves(runs: Sequence[Run]) -> str:
    training = [(run, run_curves(run.records)) for run in runs if run.training]
    training = [(run, curves) for run, curves in training if curves]
    if not training:
        return (
            '<p class="note">No run here comes from training. Training trajectories '
            "(SWIFT_GYM_TRAJECTORIES=DIR during swift rlhf or swift rollout) have learning "
            "curves.</p>"
        )
    parts = []
    axes = {curves[0].axis for _, curves in training}
    together = len(training) > 1 and len(axes) == 1  # one x axis: the runs in one chart
    if together:
        lines = [(f"run {run.label}", curves[0]) for run, curves in training]
        parts.append(f'<div class="charts">{_curve_charts(", all runs", lines, None)}</div>')
    for run, curves in training:
        if together and len(curves) == 1:
            continue  # its one curve is in the chart of all runs
        named = [(curve.name, curve) for curve in curves]
        charts = _curve_charts(f", run {run.label}", named, "all")
        parts.append(f'<div class="charts">{charts}</div>')
    return (
        "".join(parts)
        + '<p class="note">Each point: the episodes that ended at that step (or in that span); '
        "the band around “all” is its 95% interval.</p>"
    )


def _distributions(run: Run, summary: Mapping[str, Any], colours: Mapping[str, str]) -> str:
    statuses = list(summary["statuses"])
    played = [r for r in run.records if r.get("status") != "not_played"]
    return "".join(
        [
            bar_chart(
                f"run {run.label}: episodes by final status",
                statuses,
                [summary["statuses"][s] for s in statuses],
                [colours[s] for s in statuses],
            ),
            bar_chart(
                f"run {run.label}: total reward per episode",
                *histogram_bins([float(r.get("total_reward") or 0) for r in played]),
            ),
            bar_chart(
                f"run {run.label}: turns per episode",
                *histogram_bins([int(r.get("num_turns") or 0) for r in played]),
            ),
        ]
    )


def _seed_order(record: Mapping[str, Any]) -> tuple[int, float, str]:
    """Numeric seeds in order, then the rest (none, text) by their text: never a TypeError."""
    seed = record.get("seed")
    if isinstance(seed, (int, float)) and not isinstance(seed, bool) and seed == seed:
        return (0, seed, "")
    return (1, 0.0, visible.brief(seed, 200))


def _strips(run: Run, shown: Mapping[int, Any], colours: Mapping[str, str]) -> str:
    """A status-by-seed strip per env; a square links to its episode where `shown` has it."""
    by_env: dict[str, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for position, record in enumerate(run.records):
        by_env[visible.brief(record.get("env"), 200)].append((position, record))
    strips = []
    for env, records in sorted(by_env.items()):
        ordered = sorted(records, key=lambda pair: _seed_order(pair[1]))
        title = f"run {run.label}, {env}: status by seed"
        if len(ordered) > STRIP_CELLS:
            title += f" (first {STRIP_CELLS:,} of {len(ordered):,})"
        cells: list[Cell] = [
            (
                f"seed {visible.brief(r.get('seed'))} (episode {visible.brief(r.get('index'))}): "
                f"{visible.brief(r.get('status'))}, reward {visible.brief(r.get('total_reward'))}, "
                f"{plural(r.get('num_turns'), 'turn')}",
                str(r.get("status")),
                f"episode-{run.label}-{position}" if position in shown else None,
            )
            for position, r in ordered[:STRIP_CELLS]
        ]
        strips.append(status_strip(title, cells, colours))
    return "".join(strips)


def _shown(run: Run, limit: int) -> dict[int, dict[str, Any]]:
    """The whole records for the browser, by position in the run's records."""
    if run.shown is not None:
        return run.shown
    return {position: run.records[position] for position in pick(run.records, limit)}


def _scale_warning(runs: Sequence[Run]) -> str:
    """A warning for each run whose mean reward adds up envs of different reward scales."""
    flagged = []
    for run in runs:
        ranges = reward_ranges(run.records)
        if mixed_scales(ranges):
            widest = sorted(ranges.items(), key=lambda item: item[1][0] - item[1][1])
            seen = ", ".join(f"{env} {low:g} to {high:g}" for env, (low, high) in widest[:10])
            more = f" and {len(widest) - 10} more" if len(widest) > 10 else ""
            flagged.append(f"run {run.label} (rewards seen: {seen}{more})")
    if not flagged:
        return ""
    return (
        f'<p class="warn" id="reward-scales">The mean reward of {escape("; ".join(flagged), 3000)} '
        "averages envs whose reward ranges differ in width by more than ten times: the envs "
        "with the larger rewards decide it (and the “all” learning curve). Compare the envs' "
        "own rows under Per env instead."
        "</p>"
    )


def render_report(runs: Sequence[Run], episodes_shown: int = 300) -> str:
    """The HTML page for `runs` (the first is the baseline); at most `episodes_shown` episodes
    of each run that has no `shown` go into the episode browser."""
    summaries = [summarize(run.records) for run in runs]
    colours = status_colours(s for summary in summaries for s in summary["statuses"])
    ranges = [overall(reward_ranges(run.records).values()) for run in runs]
    distributions = "".join(
        f'<div class="charts">{_distributions(run, summary, colours)}</div>'
        for run, summary in zip(runs, summaries, strict=True)
    )
    shown = [(run, _shown(run, episodes_shown)) for run in runs]
    strips = "".join(_strips(run, episodes, colours) for run, episodes in shown if not run.training)
    names = ", ".join(f"{run.label}: {run.source}" for run in runs)
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    compared = (
        f"<p>Each run is compared with run {escape(runs[0].label)}: a difference is "
        "<span class='sig'>significant</span> when its 95% interval leaves out 0 (success "
        "rates: Newcombe's interval from the Wilson intervals; mean rewards: Welch's t). "
        "Nothing corrects for comparing many envs or runs at once.</p>"
        if len(runs) > 1
        else ""
    )
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src '{script_hash()}'; base-uri 'none'; form-action 'none'"
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<title>swift-gym report: {data_text(names[:300])}</title><style>{_STYLE}</style></head>
<body>
<h1>swift-gym report</h1>
<p>{plural(len(runs), "run")}, made by swift-gym {escape(__version__)} on {made}.</p>
<div class="table">{_runs_table(runs)}</div>
<h2>Summary</h2>
{compared}
{_scale_warning(runs)}
<div class="table">{_summary_table(runs, summaries, ranges)}</div>
<p class="note">Success-rate intervals are Wilson's. Mean-reward intervals are Student's t
(n &minus; 1 degrees of freedom) cut to the rewards seen (no env declares the range of its
rewards, so the least and greatest seen stand for it); a difference's, to where those ranges
allow.</p>
<h2>Per env</h2>
<div class="table">{_per_env_table(runs)}</div>
<h2>Learning curves</h2>
{_learning_curves(runs)}
<h2>Distributions</h2>
{distributions}
{"<h2>Status by seed</h2>" + strips if strips else ""}
<h2>Episodes</h2>
{browser([(run.label, episodes, len(run.records)) for run, episodes in shown])}
</body></html>
"""
