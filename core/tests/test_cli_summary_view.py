"""eval's summary shows what envs and servers wrote (statuses, errors, titles) escaped, and a
line per env when a run played several.

In-process: `print_summary` writes to the command's stdout console, captured here.
"""

from __future__ import annotations

import math
import re

import pytest

from swift_gym.cli import console
from swift_gym.cli.summary_view import print_summary
from swift_gym.evaluation.stats import summarize, summarize_per_env, wilson_ci

HOSTILE = "\x1b]0;pwned\x07\x1b[2J[bold]loud[/bold]"


@pytest.fixture
def out(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_COLOR", "1")
    console.stdout.cache_clear()
    yield console.stdout()
    console.stdout.cache_clear()


def test_statuses_errors_title_and_reason_are_escaped(out) -> None:
    summary = {
        "episodes": 2,
        "success_rate": 0.5,
        "success_rate_ci95": [0.1, 0.9],
        "mean_reward": 0.5,
        "mean_reward_ci95": [math.nan, math.nan],
        "mean_turns": 1.0,
        "invalid_action_rate": None,
        "statuses": {HOSTILE: 1, "goal": 1},
        "failed_episodes": 1,
        "errors": {f"the env failed: {HOSTILE}": 1},
    }
    with out.capture() as captured:
        print_summary(summary, f"title {HOSTILE}", f"o{HOSTILE}.jsonl", stopped=f"why {HOSTILE}")
    text = captured.get()
    assert "\x1b" not in text and "\x07" not in text
    assert text.count("\\x1b]0;pwned\\x07\\x1b[2J[bold]loud[/bold]") == 5


def played(env: str, success: bool, valid: bool = True) -> dict[str, object]:
    return {
        "env": env,
        "status": "goal" if success else "hole",
        "success": success,
        "total_reward": float(success),
        "num_turns": 2,
        "turns": [{"valid_action": valid}, {"valid_action": True}],
        "error": None,
    }


def test_a_run_of_several_envs_gets_a_line_each_with_its_wilson_interval(out) -> None:
    records = [played("alpha", k < 3) for k in range(4)] + [played("beta", False, valid=False)]
    records.append({**played("beta", False), "status": "error", "error": "boom"})
    records.append({**played("gamma", False), "status": "not_played", "turns": []})
    per_env = summarize_per_env(records)
    with out.capture() as captured:
        print_summary(summarize(records), "t", None, per_env=per_env)
    lines = captured.get().splitlines()
    start = lines.index(
        "per env: success rate (Wilson 95% CI), mean reward, mean turns, invalid actions"
    )
    low, high = wilson_ci(3, 4)
    assert [line.split() for line in lines[start + 2 : start + 5]] == [
        ["alpha", "4", "0.750", f"{low:.3f}-{high:.3f}", "0.750", "2.00", "0.0%", "0"],
        ["beta", "2", "0.000", f"0.000-{wilson_ci(0, 2)[1]:.3f}", "0.000", "2.00", "25.0%", "1"],
        ["gamma", "0", "n/a", "n/a", "n/a", "n/a", "0"],  # only not played: no rates
    ]


def test_many_envs_show_the_twenty_with_most_episodes_and_count_the_rest(out) -> None:
    records = [played(f"env{k:02d}", True) for k in range(25) for _ in range(k + 1)]
    with out.capture() as captured:
        print_summary(summarize(records), "t", None, per_env=summarize_per_env(records))
    text = captured.get()
    shown = re.findall(r"^(env\d\d) +(\d+) ", text, re.M)
    assert shown == [(f"env{k:02d}", str(k + 1)) for k in range(24, 4, -1)]
    assert "and 5 more envs with fewer episodes (--json has them all)" in text


def test_one_env_has_no_table_and_env_names_are_escaped(out) -> None:
    one = [played("alpha", True)]
    with out.capture() as captured:
        print_summary(summarize(one), "t", None, per_env=summarize_per_env(one))
    assert "per env" not in captured.get()
    records = [played(f"evil{HOSTILE}", True), played("alpha", False)]
    out.width = 200  # the name on one line
    with out.capture() as captured:
        print_summary(summarize(records), "t", None, per_env=summarize_per_env(records))
    text = captured.get()
    assert "\x1b" not in text and "\x07" not in text
    assert "evil\\x1b]0;pwned\\x07\\x1b[2J[bold]loud[/bold]  " in text
