"""Unit tests of the report's hand-written SVG (`report.svg`): its axis ticks, on any range."""

from __future__ import annotations

import math
import re

import pytest

from swift_gym.report.svg import MAX_TICKS, _ticks, histogram_bins, line_chart


@pytest.mark.parametrize(
    ("low", "high"),
    [
        (2.0**53, 2.0**53 + 2),  # 0.5 apart is no step at all up there: the loop never moved
        (2.0**60, 2.0**60 + 256),
        (2.0**53 - 0.5, 2.0**53 + 0.5),
        (0.0, 1e308),
        (-1e308, 1e308),
        (1e-320, 2e-320),  # subnormal: a step of 0 after rounding
        (5.0, 5.0),
        (0.0, 5e-324),
    ],
)
def test_ticks_end_on_huge_and_degenerate_ranges_and_are_capped(low: float, high: float) -> None:
    ticks = _ticks(low, high)
    assert 1 <= len(ticks) <= MAX_TICKS
    assert all(math.isfinite(tick) for tick in ticks)
    assert ticks == sorted(set(ticks))  # distinct, in order
    assert all(low - (high - low) <= tick <= high + (high - low) for tick in ticks)


def test_ticks_of_an_ordinary_range_are_round_and_cover_it() -> None:
    assert _ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert _ticks(3.0, 29.0) == [10.0, 20.0]
    assert _ticks(0.0, 20.0) == [0.0, 5.0, 10.0, 15.0, 20.0]
    assert _ticks(-0.3, 0.3) == [-0.2, 0.0, 0.2]


def test_ticks_far_from_0_count_from_the_first() -> None:
    base = 2.0**53 + 123_456_788
    chart = line_chart(
        "t", [("all", "#000", [(base + k, 0.5, math.nan, math.nan, "") for k in range(40)])], "step"
    )  # fmt: skip
    labels = re.findall(r'class="x-tick"[^>]*>([^<]*)<', chart)
    assert len(labels) >= 3 and labels[:2] == ["+0", "+10"]
    assert all(len(label) <= 4 for label in labels)
    assert ">step, from 9007199378197780<" in chart  # 2**53 + 123456788


def test_bins_of_whole_numbers_hold_whole_numbers() -> None:
    labels, counts = histogram_bins(list(range(51)))
    assert labels[:2] == ["0 to 4", "5 to 9"] and labels[-1] == "50 to 50"
    assert len(labels) <= 12 and sum(counts) == 51 and counts[0] == 5
    labels, counts = histogram_bins([k / 4 for k in range(51)])  # not whole: equal spans
    assert labels[0] == "0 to 1.042" and labels[-1] == "11.46 to 12.5" and sum(counts) == 51
