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

Labels are placed so that none overlaps another or leaves its chart, from an estimate of text
width (`CHAR_EM`, a little over system-ui's average): bar charts lie on their side so each
category has a line of its own, axes show as many ticks as their labels leave room for, titles
and legends wrap. Every chart has a viewBox, so the page's CSS can shrink it on a narrow screen.

Every text that comes from data (statuses, env names, tooltips) goes through `data_text`:
HTML-escaped, with controls and invisible characters spelled out (see `visible`).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from html import escape

from . import visible

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f")
STATUS_COLOURS = {
    "goal": "#59a14f",
    "done": "#4e79a7",
    "hole": "#76b7b2",
    "max_turns": "#f28e2b",
    "max_steps": "#edc948",
    "context_full": "#c85200",  # the scheduler ended it: its next prompt would not fit
    "error": "#e15759",
    "invalid_action": "#ff9da7",
    "not_played": "#bab0ac",
}
OTHER_STATUS_COLOURS = ("#b07aa1", "#9c755f", "#d37295", "#a0cbe8", "#79706e", "#b6992d",
                        "#d4a6c8", "#8cd17d")  # fmt: skip
"""For the statuses an env names itself: none of them is, or is close to, a well-known
status's colour."""

CHAR_EM = 0.62
"""Width of one character in ems, for laying out labels: a little over system-ui's average."""
BOLD_EM = 0.7
"""The same for bold titles."""
FONT = 11
"""Size of every label but titles."""
TITLE_FONT = 14
MAX_TICKS = 12
"""Ticks on one axis at most."""


def status_colours(statuses: Iterable[str]) -> dict[str, str]:
    """One colour per status for every chart of a page: the well-known statuses their fixed
    colour, each other one a colour chosen by its name (the same in every report where it
    does not meet another status of the same choice; then the next free one)."""
    colours = {}
    taken: set[str] = set()
    for status in sorted(set(statuses)):
        if status in STATUS_COLOURS:
            colours[status] = STATUS_COLOURS[status]
            continue
        first = zlib.crc32(status.encode("utf-8", "surrogatepass")) % len(OTHER_STATUS_COLOURS)
        order = OTHER_STATUS_COLOURS[first:] + OTHER_STATUS_COLOURS[:first]
        colours[status] = next((c for c in order if c not in taken), order[0])
        taken.add(colours[status])
    return colours


def data_text(value: str) -> str:
    """Data as SVG text or an attribute value: made visible, then HTML-escaped."""
    return escape(visible.plain(value))


def text_width(text: str, size: float = FONT) -> float:
    """About how wide `text` (as shown: `visible.plain`) is at `size` px."""
    return len(visible.plain(text)) * size * CHAR_EM


def fit(text: str, width: float, size: float = FONT) -> str:
    """`text` made visible and cut (with `…`) to fit `width` px; not yet escaped."""
    shown = visible.plain(text)
    room = max(1, int(width / (size * CHAR_EM)))
    return shown if len(shown) <= room else shown[: room - 1] + "…"


def _wrap(text: str, width: float, size: float, lines: int = 3) -> list[str]:
    """`text` made visible, in bold lines that fit `width` px (words kept whole where they fit),
    at most `lines` of them, the last cut with `…` when more is left."""
    room = max(2, int(width / (size * BOLD_EM)))
    words = visible.plain(text).split(" ")
    out: list[str] = [""]
    for word in words:
        while word:
            joined = f"{out[-1]} {word}" if out[-1] else word
            if len(joined) <= room:
                out[-1] = joined
                break
            if out[-1]:  # the next line
                out.append("")
            else:  # a word longer than a line: cut it
                out[-1], word = word[:room], word[room:]
                out.append("")
    out = [line for line in out if line] or [""]
    if len(out) > lines:
        out = [*out[: lines - 1], out[lines - 1][: room - 1] + "…"]
    return out


def _open(title: str, width: int, height: int) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{data_text(title)}" viewBox="0 0 {width} {height}">'
    )


def _title(title: str, width: int, x: float = 0) -> tuple[str, float]:
    """The title's lines as SVG text, and the y below them."""
    lines = _wrap(title, width - x, TITLE_FONT)
    parts = [
        f'<text x="{x}" y="{16 + 17 * k}" font-size="{TITLE_FONT}" font-weight="bold">'
        f"{escape(line)}</text>"
        for k, line in enumerate(lines)
    ]
    return "".join(parts), 16 + 17 * (len(lines) - 1) + 8


def _legend(entries: Sequence[tuple[str, str]], width: int, top: float) -> tuple[str, float]:
    """Swatches with names, wrapped into rows that fit `width`; and the y below them."""
    parts, x, y = [], 0.0, top + 10
    for name, colour in entries:
        shown = fit(name, width - 14)
        step = 14 + text_width(shown) + 12
        if x and x + step - 12 > width:
            x, y = 0.0, y + 16
        parts.append(
            f'<g class="legend"><rect x="{x:.1f}" y="{y - 9}" width="10" height="10" '
            f'fill="{colour}"/><text x="{x + 14:.1f}" y="{y}" font-size="{FONT}">'
            f"{escape(shown)}</text></g>"
        )
        x += step
    return "".join(parts), y + 6


def _fmt(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def tick_labels(values: Sequence[float]) -> list[str]:
    """Labels for `values`, short (`0.25`, `1e+06`, `12345`) but as many digits as it takes
    to tell each from its neighbours (steps past 2**53 differ only in the last digits)."""
    for digits in range(4, 18):
        labels = [_short(v, digits) for v in values]
        if len(set(labels)) == len(set(values)):
            return labels
    return [repr(float(v)) for v in values]


def _short(value: float, digits: int) -> str:
    """`value` to `digits` significant digits, in plain digits below 10**7 (`-335400`, not
    `-3.354e+05`), else as `%g` writes it."""
    if float(value).is_integer() and abs(value) < 10**digits:
        return str(int(value))
    text = f"{value:.{digits}g}"
    if "e+" in text and abs(value) < 1e7:
        places = digits - 1 - math.floor(math.log10(abs(value)))
        text = f"{round(value, places):.0f}"
    return text


def bar_chart(
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    colours: Sequence[str] | None = None,
    width: int = 380,
    unit: str = "episode",
) -> str:
    """Bars on their side, one line per label (so no label meets another), each with its
    value at its end; its tooltip says `label: value unit(s)`."""
    head, top = _title(title, width)
    row, label_w = 18, min(width * 0.55, max((text_width(label) for label in labels), default=0))
    numbers = [_fmt(v) for v in values]
    value_w = max((text_width(n) for n in numbers), default=0) + 4
    left = label_w + 6
    plot_w = max(20.0, width - left - value_w - 2)
    peak = max((v for v in values if math.isfinite(v)), default=0) or 1
    height = int(top + row * max(1, len(values)) + 6)
    parts = [
        _open(title, width, height),
        head,
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - 4}" stroke="#888"/>',
    ]
    for k, (label, value, number) in enumerate(zip(labels, values, numbers, strict=True)):
        bar_w = plot_w * max(0.0, value) / peak if math.isfinite(value) else 0
        y = top + k * row
        colour = colours[k] if colours else PALETTE[0]
        tip = f"{label}: {number} {unit}{'' if value == 1 else 's'}"
        parts += [
            f'<text class="category" x="{left - 4:.1f}" y="{y + 13:.1f}" text-anchor="end" '
            f'font-size="{FONT}">{escape(fit(label, label_w))}</text>',
            f'<rect x="{left}" y="{y + 3:.1f}" width="{bar_w:.1f}" height="{row - 5}" '
            f'fill="{colour}"><title>{data_text(tip)}</title></rect>',
            f'<text x="{left + bar_w + 3:.1f}" y="{y + 13:.1f}" font-size="{FONT}">{number}</text>',
        ]
    parts.append("</svg>")
    return "\n".join(parts)


def histogram_bins(values: Sequence[float], max_bins: int = 12) -> tuple[list[str], list[int]]:
    """Labels and counts: one bar per distinct value when there are few, else equal bins,
    each labelled by its range (`0 to 8.33`, the last one including its upper end; whole
    numbers in bins of whole numbers, `5 to 9` both included)."""
    distinct = sorted(set(values))
    if len(distinct) <= max_bins:
        return [_fmt(v) for v in distinct], [sum(1 for v in values if v == d) for d in distinct]
    low, high = distinct[0], distinct[-1]
    if all(isinstance(v, int) for v in distinct):  # counts (turns): whole-number bins
        width = math.ceil((high - low + 1) / max_bins)
        bins = math.ceil((high - low + 1) / width)
        counts = [0] * bins
        for value in values:
            counts[int(value - low) // width] += 1  # whole numbers: int() only tells mypy so
        starts = [low + k * width for k in range(bins)]
        return [f"{a} to {min(a + width - 1, high)}" for a in starts], counts
    step = high / max_bins - low / max_bins
    counts = [0] * max_bins
    for value in values:
        counts[min(max_bins - 1, int((value - low) / step))] += 1
    edges = tick_labels([low + k * step for k in range(max_bins)] + [high])
    labels = [f"{edges[k]} to {edges[k + 1]}" for k in range(max_bins)]
    return labels, counts


Cell = tuple[str, str, str | None]
"""A square of a status strip: (tooltip, status, the id of its episode in the page or None)."""


def status_strip(
    title: str, cells: Sequence[Cell], colours: Mapping[str, str], width: int = 520
) -> str:
    """One small square per episode, in seed order, coloured by status, each a link to its
    episode where the page has it; hover for details. The legend names the statuses shown."""
    size, gap = 12, 2
    head, top = _title(title, width)
    per_row = max(1, (width - 10) // (size + gap))
    rows = max(1, math.ceil(len(cells) / per_row))
    present = list(dict.fromkeys(status for _, status, _ in cells))
    legend, height = _legend([(s, colours.get(s, "#999999")) for s in present], width,
                             top + rows * (size + gap) + 4)  # fmt: skip
    parts = [_open(title, width, int(height)), head]
    for k, (tooltip, status, target) in enumerate(cells):
        x, y = (k % per_row) * (size + gap), top + (k // per_row) * (size + gap)
        square = (
            f'<rect x="{x}" y="{y:.1f}" width="{size}" height="{size}" '
            f'fill="{colours.get(status, "#999999")}"><title>{data_text(tooltip)}</title></rect>'
        )
        parts.append(f'<a href="#{escape(target)}">{square}</a>' if target else square)
    parts += [legend, "</svg>"]
    return "\n".join(parts)


Series = tuple[str, str, Sequence[tuple[float, float, float, float, str]]]
"""(name, colour, points): each point (x, y, low, high, where); low and high draw a band (NaN:
none); `where` names the point's x in its tooltip."""


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values that cover [low, high], at most MAX_TICKS, distinct and in order.

    Made by index (first + k * step), never by adding the step up: from 2**53 on, a step of
    0.5 adds nothing to a float, and a loop that adds it never ends.
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return [value for value in (low, high) if math.isfinite(value)][:1]
    raw = high / count - low / count  # not (high - low) / count: that overflows at +-1e308
    if not raw > 0:  # one value, or a span so small it rounds to none
        return sorted({low, high})
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    digits = max(0, 2 - math.floor(math.log10(step)))  # 0.6, not 0.6000000000000001
    indices = range(first, min(last, first + MAX_TICKS - 1) + 1)
    return sorted({round(k * step, digits) for k in indices}) or [low]


def _span(low: float, high: float) -> tuple[float, float]:
    """[low, high] widened where it is one value: a step around it that floats can tell apart
    (from 2**53 on, +-0.5 is none)."""
    if high > low:
        return low, high
    wider = (low - 0.5, high + 0.5)
    if wider[1] > wider[0]:
        return wider
    return math.nextafter(low, -math.inf), math.nextafter(high, math.inf)


def _x_ticks(low: float, high: float, room: float) -> tuple[list[float], list[str], str]:
    """Ticks on the x axis, their labels (as many as fit `room` px side by side), and what the
    labels count from: "" for 0, else the first tick, where the ticks lie so far from 0 that
    their labels would be long (steps past 2**53: `+0 +10 +20` from 9007199378197780)."""
    base = ""
    for count in (5, 4, 3, 2, 1):
        ticks = _ticks(low, high, count)
        labels = tick_labels(ticks)
        if len(ticks) > 1 and max(map(len, labels)) > 7 and abs(ticks[0]) > 1000 * (high - low):
            base = _short(ticks[0], 17)
            labels = [f"+{label}" for label in tick_labels([t - ticks[0] for t in ticks])]
        widest = max(text_width(label) for label in labels) + 8
        if widest * len(ticks) <= room or len(ticks) == 1:
            break
    if widest * len(ticks) > room:  # one tick too wide still: its first only
        ticks, labels = ticks[:1], labels[:1]
    return ticks, labels, base


def line_chart(
    title: str,
    series: Sequence[Series],
    x_label: str,
    y_range: tuple[float, float] | None = None,
    width: int = 520,
    height: int = 280,
) -> str:
    """Lines over x, one per series, each point a dot with a tooltip, its interval a band.

    `height` is the plot's and its axes'; a title or legend of several lines adds to it."""
    head, top = _title(title, width)
    top += 8
    points = [p for _, _, pts in series for p in pts if math.isfinite(p[1])]
    xs = [p[0] for p in points]
    x_low, x_high = _span(*((min(xs), max(xs)) if xs else (0.0, 1.0)))
    if y_range is None:
        ys = [v for p in points for v in p[1:4] if math.isfinite(v)] + [0.0]
        y_low, y_high = _span(min(ys), max(ys))
    else:
        y_low, y_high = y_range
    y_ticks = _ticks(y_low, y_high)
    y_labels = tick_labels(y_ticks)
    left = max(40, 8 + max(text_width(label) for label in y_labels))
    right, plot_h = 16, height - 44 - 64
    plot_w = width - left - right
    x_ticks, x_labels, x_base = _x_ticks(x_low, x_high, plot_w + right)
    x_label = f"{x_label}, from {x_base}" if x_base else x_label

    def px(x: float) -> float:
        return left + (x / 2 - x_low / 2) / (x_high / 2 - x_low / 2) * plot_w

    def py(y: float) -> float:
        share = (min(max(y, y_low), y_high) / 2 - y_low / 2) / (y_high / 2 - y_low / 2)
        return top + plot_h - share * plot_h

    legend, bottom = _legend(
        [(visible.brief(name, 40), colour) for name, colour, _ in series], width,
        top + plot_h + 40,
    )  # fmt: skip
    parts = [
        _open(title, width, int(bottom)),
        head,
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="#ccc"/>',
        f'<text x="{left + plot_w / 2:.1f}" y="{top + plot_h + 30}" text-anchor="middle" '
        f'font-size="{FONT}">{escape(fit(x_label, plot_w))}</text>',
    ]
    for tick, text in zip(y_ticks, y_labels, strict=True):
        y = py(tick)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#eee"/>'
            f'<text class="y-tick" x="{left - 5}" y="{y + 4:.1f}" text-anchor="end" '
            f'font-size="{FONT}">{text}</text>'
        )
    for tick, text in zip(x_ticks, x_labels, strict=True):
        half = text_width(text) / 2
        x = min(max(px(tick), half + 1), width - half - 1)  # not past the chart's edges
        parts.append(
            f'<text class="x-tick" x="{x:.1f}" y="{top + plot_h + 16}" '
            f'text-anchor="middle" font-size="{FONT}">{text}</text>'
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
    parts += [legend, "</svg>"]
    return "\n".join(parts)
