"""Small inline SVG charts for the HTML report: no plotting library, no external files.

Every text that comes from data (statuses, env names, tooltips) goes through `data_text`:
HTML-escaped, with controls and invisible characters spelled out (see `visible`). Sizes are
fixed, so the report looks the same in any browser and stays a single file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from . import visible

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f")
STATUS_COLOURS = {
    "goal": "#59a14f",
    "done": "#4e79a7",
    "hole": "#76b7b2",
    "max_turns": "#f28e2b",
    "max_steps": "#edc948",
    "error": "#e15759",
}


def status_colour(status: str, statuses: Sequence[str]) -> str:
    """A fixed colour for well-known statuses, else one from the palette by position."""
    if status in STATUS_COLOURS:
        return STATUS_COLOURS[status]
    return PALETTE[statuses.index(status) % len(PALETTE)] if status in statuses else "#999999"


def data_text(value: str) -> str:
    """Data as SVG text or an attribute value: made visible, then HTML-escaped."""
    return escape(visible.plain(value))


def _fmt(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def bar_chart(
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    colours: Sequence[str] | None = None,
    width: int = 520,
    height: int = 260,
) -> str:
    """Vertical bars, one per label, each with its value on top."""
    left, right, top, bottom = 40, 10, 44, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max((v for v in values if math.isfinite(v)), default=0) or 1
    slot = plot_w / max(1, len(values))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{data_text(title)}">',
        f'<text x="{left}" y="18" font-weight="bold">{data_text(title)}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" '
        'stroke="#888"/>',
        f'<text x="{left - 6}" y="{top + 4}" text-anchor="end" font-size="11">{_fmt(peak)}</text>',
        f'<text x="{left - 6}" y="{top + plot_h}" text-anchor="end" font-size="11">0</text>',
    ]
    for k, (label, value) in enumerate(zip(labels, values, strict=True)):
        bar_h = plot_h * max(0.0, value) / peak if math.isfinite(value) else 0
        x = left + k * slot + slot * 0.1
        y = top + plot_h - bar_h
        colour = colours[k] if colours else PALETTE[0]
        centre = x + slot * 0.4
        parts += [
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot * 0.8:.1f}" height="{bar_h:.1f}" '
            f'fill="{colour}"><title>{data_text(label)}: {_fmt(value)}</title></rect>',
            f'<text x="{centre:.1f}" y="{y - 3:.1f}" text-anchor="middle" font-size="11">'
            f"{_fmt(value)}</text>",
            f'<text x="{centre:.1f}" y="{top + plot_h + 15}" text-anchor="middle" '
            f'font-size="11">{data_text(label)}</text>',
        ]
    parts.append("</svg>")
    return "\n".join(parts)


def histogram_bins(values: Sequence[float], max_bins: int = 12) -> tuple[list[str], list[int]]:
    """Labels and counts: one bar per distinct value when there are few, else equal bins."""
    distinct = sorted(set(values))
    if len(distinct) <= max_bins:
        return [_fmt(v) for v in distinct], [sum(1 for v in values if v == d) for d in distinct]
    low, high = distinct[0], distinct[-1]
    step = (high - low) / max_bins
    counts = [0] * max_bins
    for value in values:
        counts[min(max_bins - 1, int((value - low) / step))] += 1
    labels = [f"{low + k * step:.2g}" for k in range(max_bins)]
    return labels, counts


def status_strip(
    title: str, cells: Sequence[tuple[str, str]], statuses: Sequence[str], width: int = 760
) -> str:
    """One small square per episode, in seed order, coloured by status; hover for details.

    `cells` holds (tooltip, status) pairs.
    """
    size, gap, top = 12, 2, 28
    per_row = max(1, (width - 10) // (size + gap))
    rows = max(1, math.ceil(len(cells) / per_row))
    legend_y = top + rows * (size + gap) + 16
    height = legend_y + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="{data_text(title)}">',
        f'<text x="0" y="18" font-weight="bold">{data_text(title)}</text>',
    ]
    for k, (tooltip, status) in enumerate(cells):
        x, y = (k % per_row) * (size + gap), top + (k // per_row) * (size + gap)
        parts.append(
            f'<rect x="{x}" y="{y}" width="{size}" height="{size}" '
            f'fill="{status_colour(status, statuses)}"><title>{data_text(tooltip)}</title></rect>'
        )
    x = 0
    for status in statuses:
        parts.append(
            f'<rect x="{x}" y="{legend_y - 10}" width="10" height="10" '
            f'fill="{status_colour(status, statuses)}"/>'
            f'<text x="{x + 14}" y="{legend_y}" font-size="11">{data_text(status)}</text>'
        )
        x += 24 + 7 * len(status)
    parts.append("</svg>")
    return "\n".join(parts)
