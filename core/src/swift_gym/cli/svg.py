"""Small inline SVG charts for the HTML report: bars, status strips, lines with bands.

Why hand-written SVG and not a plotting library, chosen on what the report must be: one file
that opens anywhere with no network, a few hundred KB at most, and safe with text from models.
- Plotly or Vega-Lite would draw in the browser: 1 to 4 MB of JavaScript inlined into every
  page, the data handed to it as JSON that a script reads (a second escaping path for hostile
  text), and a Content-Security-Policy that has to allow that script to evaluate code.
- Matplotlib (or anything built on it) would add NumPy, Pillow and Matplotlib, some 40 MB, to a
  core package that every training process installs, for static pictures.
- The report needs three kinds of chart, each about forty lines here, drawn in fixed sizes (the
  page looks the same in every browser) with every data text escaped by one function.
What a library would add that is missed here is zoom and hover readouts; each mark carries a
`<title>` tooltip instead.

Every text that comes from data (statuses, env names, tooltips) goes through `data_text`:
HTML-escaped, with controls and invisible characters spelled out (see `visible`).
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


OTHER_STATUS_COLOURS = ("#b07aa1", "#9c755f", "#ff9da7", "#8cd17d", "#d37295", "#a0cbe8")
"""For the statuses an env names itself: none of them is a well-known status's colour."""


def status_colour(status: str, statuses: Sequence[str]) -> str:
    """A fixed colour for well-known statuses, else one of the others by position."""
    if status in STATUS_COLOURS:
        return STATUS_COLOURS[status]
    others = [s for s in statuses if s not in STATUS_COLOURS]
    if status not in others:
        return "#999999"
    return OTHER_STATUS_COLOURS[others.index(status) % len(OTHER_STATUS_COLOURS)]


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


Series = tuple[str, str, Sequence[tuple[float, float, float, float, str]]]
"""(name, colour, points): each point (x, y, low, high, where); low and high draw a band (NaN:
none); `where` names the point's x in its tooltip."""


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values that cover [low, high]."""
    if not high > low:
        return [low]
    raw = high / count - low / count  # (high - low) overflows from -1e308 to 1e308
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def line_chart(
    title: str,
    series: Sequence[Series],
    x_label: str,
    y_range: tuple[float, float] | None = None,
    width: int = 520,
    height: int = 280,
) -> str:
    """Lines over x, one per series, each point a dot with a tooltip, its interval a band."""
    left, right, top, bottom = 48, 12, 44, 64
    plot_w, plot_h = width - left - right, height - top - bottom
    points = [p for _, _, pts in series for p in pts if math.isfinite(p[1])]
    xs = [p[0] for p in points]
    x_low, x_high = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x_high == x_low:
        x_low, x_high = x_low - 0.5, x_high + 0.5
    if y_range is None:
        ys = [v for p in points for v in p[1:4] if math.isfinite(v)] + [0.0]
        y_low, y_high = min(ys), max(ys)
        if y_high == y_low:
            y_high = y_low + 1
    else:
        y_low, y_high = y_range

    def px(x: float) -> float:
        return left + (x / 2 - x_low / 2) / (x_high / 2 - x_low / 2) * plot_w  # no overflow

    def py(y: float) -> float:
        y = min(max(y, y_low), y_high)
        return top + plot_h - (y / 2 - y_low / 2) / (y_high / 2 - y_low / 2) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{data_text(title)}">',
        f'<text x="{left}" y="18" font-weight="bold">{data_text(title)}</text>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="#ccc"/>',
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 32}" text-anchor="middle" '
        f'font-size="11">{data_text(x_label)}</text>',
    ]
    for tick in _ticks(y_low, y_high):
        y = py(tick)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#eee"/>'
            f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end" font-size="11">'
            f"{_fmt(tick)}</text>"
        )
    for tick in _ticks(x_low, x_high):
        x = px(tick)
        parts.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle" font-size="11">'
            f"{_fmt(tick)}</text>"
        )
    for name, colour, pts in reversed(series):  # the first on top
        pts = [p for p in pts if math.isfinite(p[1])]
        band = [p for p in pts if math.isfinite(p[2]) and math.isfinite(p[3])]
        if len(band) > 1:
            outline = [f"{px(p[0]):.1f},{py(p[3]):.1f}" for p in band]
            outline += [f"{px(p[0]):.1f},{py(p[2]):.1f}" for p in reversed(band)]
            parts.append(
                f'<polygon points="{" ".join(outline)}" fill="{colour}" fill-opacity="0.15"/>'
            )
        if len(pts) > 1:
            line = " ".join(f"{px(p[0]):.1f},{py(p[1]):.1f}" for p in pts)
            parts.append(
                f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for x, y, low, high, where in pts:
            interval = f" (95% CI {low:.3g} to {high:.3g})" if math.isfinite(low) else ""
            parts.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}">'
                f"<title>{data_text(name)}: {data_text(where)}: {y:.3g}{interval}</title></circle>"
            )
    x, legend_y = left, height - 10
    for name, colour, _ in series:
        shown = visible.brief(name, 40)
        parts.append(
            f'<rect x="{x}" y="{legend_y - 9}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{x + 14}" y="{legend_y}" font-size="11">{data_text(shown)}</text>'
        )
        x += 24 + 7 * len(shown)
    parts.append("</svg>")
    return "\n".join(parts)
