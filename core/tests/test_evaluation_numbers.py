"""Statistics of finite but extreme numbers: a mean never overflows, an interval beyond the
largest float is unbounded (-inf, inf), a rate's interval at no or every success ends exactly
at 0 or 1, `--json` prints no float noise, and a trajectory file with numbers that cannot be
counted with loads with a warning naming the line."""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swift_gym.cli.console import print_json
from swift_gym.evaluation import EvalResult
from swift_gym.evaluation.stats import json_safe, mean, mean_ci, summarize, t95, wilson_ci
from swift_gym.evaluation.student_t import t_quantile
from swift_gym.evaluation.training import training_place

HUGE = 1e308
finite = st.floats(allow_nan=False, allow_infinity=False)


def test_the_mean_of_huge_rewards_is_the_reward() -> None:
    assert mean_ci([HUGE, HUGE]) == (HUGE, HUGE, HUGE)
    assert mean_ci([sys.float_info.max] * 3) == (sys.float_info.max,) * 3
    assert mean([HUGE, HUGE]) == HUGE


def test_an_interval_beyond_the_largest_float_is_unbounded() -> None:
    assert mean_ci([HUGE, -HUGE]) == (0.0, -math.inf, math.inf)
    centre, low, high = mean_ci([1e200, -1e200])
    assert centre == 0.0
    assert high == -low == pytest.approx(12.706204736174694 * 1e200)  # t, 1 degree of freedom


@given(st.lists(finite, min_size=1, max_size=50))
def test_the_mean_of_finite_values_is_finite_and_between_them(values: list[float]) -> None:
    centre, low, high = mean_ci(values)
    assert min(values) <= centre <= max(values)
    assert low <= centre <= high
    assert mean(values) == centre


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=2, max_size=50))
def test_scaling_keeps_the_plain_formula_where_it_does_not_overflow(values: list[float]) -> None:
    n = len(values)
    plain = math.fsum(values) / n
    deviation = math.fsum((value - plain) ** 2 for value in values) / (n - 1)
    half = t95(n) * math.sqrt(deviation / n)
    assert mean_ci(values) == pytest.approx((plain, plain - half, plain + half), rel=1e-12)
    assert mean_ci(values)[0] == pytest.approx(statistics.fmean(values), rel=1e-12, abs=1e-300)


def record(index: int, **fields: Any) -> dict[str, Any]:
    return {"index": index, "env": "toy", "turns": [], "num_turns": 1, "total_reward": 1.0,
            "status": "done", "success": False, **fields}  # fmt: skip


@given(st.integers(1, 10**9))
def test_a_rate_interval_ends_exactly_at_0_and_1_with_no_or_every_success(n: int) -> None:
    # the sum of Wilson's centre and half-width leaves 5.6e-17 or 0.9999999999999999 there
    assert wilson_ci(0, n)[0] == 0.0
    assert wilson_ci(n, n)[1] == 1.0
    for successes in (0, n // 2, n):
        low, high = wilson_ci(successes, n)
        assert 0.0 <= low <= successes / n <= high <= 1.0


def test_json_output_has_no_float_noise(capsys: pytest.CaptureFixture[str]) -> None:
    """What `swift-gym eval --json` prints: 3 failed episodes (their rate's interval once began
    at 5.551115123125783e-17), rewards whose mean is 0.19999999999999998 as a float."""
    failed = [{"status": "lost", "success": False, "total_reward": r} for r in (0.1, 0.2, 0.3)]
    summary = summarize(failed)
    print_json(json_safe({**summary, "per_env": {"e": summary}}))
    printed = json.loads(capsys.readouterr().out)
    for shown in (printed, printed["per_env"]["e"]):
        assert shown["success_rate_ci95"][0] == 0.0
        assert shown["mean_reward"] == 0.2
    largest = summarize([{"total_reward": sys.float_info.max}] * 2)
    print_json(json_safe(largest))  # 12 digits of the largest float: still a float, rounded down
    shown = json.loads(capsys.readouterr().out)["mean_reward"]
    assert shown == pytest.approx(sys.float_info.max, rel=1e-11) and math.isfinite(shown)


def test_json_output_has_no_noise_of_summed_step_rewards() -> None:
    """Totals summed from step rewards carry their rounding (0.1 + 0.2 - 0.3 is 5.55e-17 as
    floats): the interval's lower bound, clipped to the least total seen, printed 5.55e-17;
    a mean of totals that cancel printed 5.05e-18, and its standard error 1.4e-17."""
    cancels = 0.1 + 0.2 - 0.3
    assert 0 < cancels < 1e-16
    ends = [{"total_reward": total} for total in (0.1 + 0.2, 0.2 + 0.4, cancels)]
    printed = json_safe(summarize(ends))
    assert printed["mean_reward_ci95"][0] == 0.0
    assert printed["mean_reward"] == 0.3 and printed["mean_reward_ci95"][1] == 0.6
    mean_zero = [-0.4, 0.7, -0.3, 0.1 + 0.1, -0.1, -0.3, -0.1, 0.2, 0.1, 0.1, -0.1]
    assert summarize([{"total_reward": r} for r in mean_zero])["mean_reward"] == 0.0
    same = json_safe(summarize([{"total_reward": r} for r in (0.3 - 0.2, 0.1)]))
    assert same["mean_reward_se"] == 0.0 and same["mean_reward_ci95"] == [0.1, 0.1]
    assert same["mean_reward"] == 0.1
    alone = summarize([{"total_reward": cancels}])  # nothing bigger to call it noise against
    assert alone["mean_reward"] == cancels


def test_summaries_of_huge_counts_do_not_overflow() -> None:
    summary = summarize([record(0, num_turns=10**308), record(1, num_turns=10**308)])
    assert summary["mean_turns"] == 1e308


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    sys.set_int_max_str_digits(0)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("key", ["num_turns", "total_reward"])
def test_load_skips_a_number_too_large_to_count_with_a_warning(tmp_path: Path, key: str) -> None:
    path = write(tmp_path / "t.jsonl", [record(0, **{key: 10**400}), record(1)])
    with pytest.warns(UserWarning) as warned:
        result = EvalResult.load(path)
    (warning,) = warned
    assert str(warning.message).startswith(
        f"skipped {path}, line 1: not an episode record ('{key}' is 1000"
    )
    assert "too large to count" in str(warning.message)
    assert [r["index"] for r in result.records] == [1]


def test_load_summarises_huge_rewards(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", [record(0, total_reward=HUGE), record(1, total_reward=HUGE)])
    result = EvalResult.load(path)
    assert result.mean_reward == HUGE
    assert result.mean_reward_ci95 == (HUGE, HUGE)
    assert "mean_reward=1e+308)" in repr(result)  # not 309 digits


@pytest.mark.parametrize(
    ("training", "step", "time"),
    [
        ({"step": 10**400, "time": 1.7e9}, None, 1.7e9),
        ({"step": 2**63, "time": 1.7e9}, None, 1.7e9),
        ({"step": 2**63 - 1, "time": 1.7e9}, 2**63 - 1, 1.7e9),
        ({"step": 3, "time": HUGE}, 3, None),
        ({"step": 3, "time": -HUGE}, 3, None),
        ({"step": 3, "time": 10**400}, 3, None),
        ({"step": 3, "time": 253402300799.0}, 3, 253402300799.0),  # 9999-12-31T23:59:59Z
    ],
)
def test_a_training_place_out_of_range_is_unknown(
    training: dict[str, Any], step: int | None, time: float | None
) -> None:
    place = training_place({"training": training})
    assert place is not None
    assert (place.step, place.time) == (step, time)


def test_a_mean_rewards_interval_stays_within_the_rewards_seen() -> None:
    """Rare wins of a 0/1 reward: the interval of the mean reaches below 0 (eval printed -0.011
    where the report, which clips, printed 0.000); a mean cannot leave the rewards' range, so
    both print the clipped interval, and comparisons use the unclipped standard error."""
    from swift_gym.evaluation.compare import mean_difference

    records = [{"total_reward": 1.0 if i == 0 else 0.0, "status": "ok"} for i in range(40)]
    summary = summarize(records)
    low, high = summary["mean_reward_ci95"]
    assert low == 0.0 and 0.025 < high < 0.08
    se = summary["mean_reward_se"]
    assert high - summary["mean_reward"] == pytest.approx(t95(40) * se)  # the unclipped side
    other = summarize([{"total_reward": 1.0, "status": "ok"}] * 2 + records[2:])
    diff = mean_difference(summary, other)
    v1, v2 = se**2, other["mean_reward_se"] ** 2
    freedom = (v1 + v2) ** 2 / (v1**2 / 39 + v2**2 / 39)  # Welch-Satterthwaite
    half = t_quantile(0.975, freedom) * (v1 + v2) ** 0.5
    assert diff.high - diff.difference == pytest.approx(half)


def test_a_difference_of_means_with_errors_near_the_largest_float_is_computed() -> None:
    """A standard error of 5.8e307 has a square beyond the floats (`**` raises there): the
    difference is still Welch's, its bounds infinite only where they pass the largest float."""
    from swift_gym.evaluation.compare import mean_difference

    def run(*rewards: float) -> dict[str, Any]:
        return summarize([{"total_reward": reward, "status": "ok"} for reward in rewards])

    small = run(0.0, 1.0)
    diff = mean_difference(small, run(1e308, -1e308, 1e308, -1e308))
    assert (diff.low, diff.high) == (-math.inf, math.inf)  # 3.18 x 5.8e307 each side
    diff = mean_difference(small, run(1e307, -1e307, 1e307, -1e307))
    se = 1e307 / math.sqrt(3)  # the other's is 0.5, 3e-307 of it: Welch's df is 3
    assert diff.high - diff.difference == pytest.approx(t_quantile(0.975, 3) * se, rel=1e-12)
