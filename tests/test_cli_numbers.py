"""Finite but extreme numbers, from an env or from a file, through the real commands: `eval`
summarises rewards of 1e308 without overflowing, and `report`, `replay` and `export` read records
with huge rewards, counts, steps and times without a traceback. A number that cannot be counted
with (a `num_turns` beyond any float) makes its line a line-numbered warning; a training place
that is no plausible step or time is read as unknown."""

from __future__ import annotations

import json
import math
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run

HUGE = 1e308

EXTREME_ENVS = '''
import swift_gym


class Huge(swift_gym.Env):
    """Every episode: one reply, reward 1e308."""

    async def reset(self, request=None):
        return "say something", {}, ""

    async def step(self, messages):
        return "ok", 1e308, True, {"status": "paid"}


class Swings(Huge):
    """+1e308 on even seeds, -1e308 on odd ones."""

    async def step(self, messages):
        return "ok", 1e308 if self.config.seed % 2 == 0 else -1e308, True, {}


class Overflows(Huge):
    """Two replies of 1e308 each: the episode's total is beyond any float."""

    async def step(self, messages):
        return "ok", 1e308, len(messages) >= 4, {}
'''


@pytest.fixture
def extreme_site(tmp_path: Path) -> dict[str, str]:
    """A distribution `extreme-envs` with envs `huge`, `swings` and `overflows`, on PYTHONPATH."""
    site = tmp_path / "site"
    info = site / "extreme_envs-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: extreme-envs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[swift_gym.envs]\nhuge = extreme_envs:Huge\nswings = extreme_envs:Swings\n"
        "overflows = extreme_envs:Overflows\n"
    )
    (site / "extreme_envs.py").write_text(textwrap.dedent(EXTREME_ENVS))
    return {"PYTHONPATH": str(site)}


def test_eval_summarises_rewards_of_1e308(extreme_site: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "huge.jsonl"
    args = ("eval", "huge", "--policy", "random", "-n", "4", "-o", str(out))
    result = run(*args, "--json", env=extreme_site)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["episodes"] == 4
    assert summary["mean_reward"] == HUGE
    assert summary["mean_reward_ci95"] == [HUGE, HUGE]
    assert summary["success_rate"] == 1.0
    human = run(*args, "--force", env=extreme_site)  # -o holds the first run's episodes
    assert human.returncode == 0, human.stderr
    assert "Traceback" not in human.stderr
    assert re.search(r"mean reward +1e\+308 +95% CI 1e\+308 to 1e\+308", human.stdout)
    again = run("replay", "--list", str(out))
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("1e+308") == 4


def test_eval_keeps_an_interval_beyond_every_float_within_the_rewards_seen(
    extreme_site: dict[str, str],
) -> None:
    result = run("eval", "swings", "--policy", "random", "-n", "2", "--json", env=extreme_site)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["mean_reward"] == 0.0  # (1e308 - 1e308) / 2, not an OverflowError
    # the 95% interval is 0 +- 12.7e308 (Student's t, 1 degree of freedom), beyond the largest
    # float; a mean cannot leave the rewards' range, so it is clipped to it (as the report
    # clips it); its standard error, taken apart from the interval, is 1e308
    assert summary["mean_reward_ci95"] == [-1e308, 1e308]
    assert summary["mean_reward_se"] == pytest.approx(1e308, rel=1e-12)
    human = run("eval", "swings", "--policy", "random", "-n", "2", env=extreme_site)
    assert human.returncode == 0, human.stderr
    assert re.search(r"mean reward +0\.000 +95% CI -1e\+308 to 1e\+308", human.stdout), human.stdout
    four = run("eval", "swings", "--policy", "random", "-n", "4", "--json", env=extreme_site)
    assert json.loads(four.stdout)["mean_reward_ci95"] == [-1e308, 1e308]  # inf: 3.18 x se
    se = json.loads(four.stdout)["mean_reward_se"]
    assert se == pytest.approx(1e308 / math.sqrt(3), rel=1e-12)  # sd 2e308/sqrt(3), over 2


def test_an_episode_whose_total_reward_overflows_fails_with_the_reason(
    extreme_site: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "overflows.jsonl"
    args = ("eval", "overflows", "--policy", "random", "-n", "2", "-o", str(out), "--json")
    result = run(*args, env=extreme_site)
    assert result.returncode == 1, result.stderr  # failed episodes
    summary = json.loads(result.stdout)
    assert summary["statuses"] == {"error": 2}
    (error,) = summary["errors"]
    assert error.startswith("step() at turn 2: the total reward overflowed")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [record["total_reward"] for record in records] == [HUGE, HUGE]  # the turns before
    assert [record["num_turns"] for record in records] == [2, 2]  # every turn is kept
    shown = run("replay", str(out))
    assert shown.returncode == 0, shown.stderr
    assert "total reward overflowed" in shown.stdout


def record(index: int, **fields: Any) -> dict[str, Any]:
    return {
        "index": index,
        "env": "toy",
        "seed": index,
        "env_config": {"name": "toy", "seed": index},
        "policy": "random",
        "system_prompt": "play",
        "observation": "start",
        "turns": [
            {
                "turn": 1,
                "reply": "move",
                "action": "move",
                "valid_action": True,
                "observation": "end",
                "reward": fields.get("total_reward", 1.0),
                "done": True,
                "info": {},
            }
        ],
        "num_turns": 1,
        "total_reward": 1.0,
        "success": True,
        "status": "done",
        "error": None,
        **fields,
    }


def training(step: Any, time: Any, sequence: int = 0) -> dict[str, Any]:
    return {"step": step, "time": time, "sequence": sequence, "host": "h", "pid": 7, "rank": 0}


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    sys.set_int_max_str_digits(0)  # this test's own json.dumps of 10**400
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


EXTREME_FILES = {
    "rewards_1e308": [record(0, total_reward=HUGE), record(1, total_reward=HUGE)],
    "rewards_pm_1e200": [record(0, total_reward=1e200), record(1, total_reward=-1e200)],
    "rewards_pm_1e308": [record(0, total_reward=HUGE), record(1, total_reward=-HUGE)],
    "int_reward_10e400": [record(0, total_reward=10**400), record(1)],
    "turns_10e400": [record(0, num_turns=10**400), record(1)],
    "step_10e400": [
        record(0, training=training(10**400, 1.7e9)),
        record(1, training=training(1, 1.7e9 + 1, 1)),
    ],
    "times_pm_1e308": [
        record(0, training=training(None, HUGE)),
        record(1, training=training(None, -HUGE, 1)),
    ],
    "training_rewards_pm_1e308": [
        record(0, total_reward=HUGE, training=training(1, 1.7e9)),
        record(1, total_reward=-HUGE, training=training(2, 1.7e9 + 1, 1)),
    ],
}
UNCOUNTABLE = {"int_reward_10e400": "total_reward", "turns_10e400": "num_turns"}
"""The files whose first line cannot be counted with: a warning, and the rest read."""


@pytest.fixture
def extreme_file(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    name = request.param
    return name, write(tmp_path / f"{name}.jsonl", EXTREME_FILES[name])


def skipped_first_line(name: str, path: Path, stderr: str) -> None:
    """`stderr` warns about line 1 of an uncountable file, and about nothing else."""
    if name in UNCOUNTABLE:
        key = UNCOUNTABLE[name]
        expected = f"skipped: {path}, line 1: not an episode record ('{key}' is 1000"
        assert expected in stderr
        assert "too large to count" in stderr
    else:
        assert "skipped" not in stderr


COMMANDS = {
    "report": lambda path: ("report", str(path), "-o", str(path.with_suffix(".html"))),
    "replay": lambda path: ("replay", str(path)),
    "replay --list": lambda path: ("replay", "--list", str(path)),
    "export": lambda path: ("export", str(path), "-o", str(path.with_suffix(".sft.jsonl"))),
}


@pytest.mark.parametrize("extreme_file", sorted(EXTREME_FILES), indirect=True)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_commands_read_records_with_extreme_numbers(
    command: str, extreme_file: tuple[str, Path]
) -> None:
    name, path = extreme_file
    result = run(*COMMANDS[command](path))
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    skipped_first_line(name, path, result.stderr)
    episodes = 1 if name in UNCOUNTABLE else 2
    if command == "report":
        assert f"(1 run, {episodes} episode" in result.stderr
        assert path.with_suffix(".html").read_text().startswith("<!DOCTYPE html>")
    elif command == "export":
        rows = path.with_suffix(".sft.jsonl").read_text().splitlines()
        assert len(rows) == episodes
    elif command == "replay":
        assert len(re.findall(r"^episode \d", result.stdout, re.MULTILINE)) == episodes
    else:
        assert result.stdout.count(" toy ") == episodes


def test_report_shows_huge_intervals_clipped_and_in_short_form(tmp_path: Path) -> None:
    plus = write(tmp_path / "plus.jsonl", EXTREME_FILES["rewards_1e308"])
    both = write(tmp_path / "both.jsonl", EXTREME_FILES["rewards_pm_1e308"])
    page = tmp_path / "page.html"
    result = run("report", str(plus), str(both), "-o", str(page))
    assert result.returncode == 0, result.stderr
    shown = page.read_text()
    # run B's 0 +- 2.8e308, clipped to the rewards seen; never 309 digits
    assert "95% CI -1e+308 to 1e+308" in shown
    assert "100000000000000001" not in shown


def test_a_training_place_out_of_range_is_unknown(tmp_path: Path) -> None:
    steps = write(tmp_path / "steps.jsonl", EXTREME_FILES["step_10e400"])
    result = run("replay", "--list", "--step", "1", str(steps))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("toy") == 1  # episode 1 at step 1; episode 0's step is unknown
    shown = run("replay", str(steps))
    assert "episode 0 (no step, rank 0, steps.jsonl)" in shown.stdout
