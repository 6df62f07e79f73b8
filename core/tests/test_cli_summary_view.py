"""eval's summary shows what envs and servers wrote (statuses, errors, titles) escaped.

In-process: `print_summary` writes to the command's stdout console, captured here.
"""

from __future__ import annotations

import math

import pytest

from swift_gym.cli import console
from swift_gym.cli.summary_view import print_summary

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
