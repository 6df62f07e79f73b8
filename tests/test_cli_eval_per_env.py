"""`swift-gym eval` on a run of several envs: the summary adds one line per env, and `--json` a
`per_env` object, with the numbers the library computes from the same trajectory file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run

from swift_gym.evaluation import EvalResult


@pytest.fixture(scope="module")
def mix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mix") / "mix.jsonl"
    made = run(
        "dataset", "--mix", "frozen_lake:3,frozen_lake_ms_swift:1", "-n", "40", "-o", str(path)
    )
    assert made.returncode == 0, made.stderr
    return path


def per_env_lines(out: str) -> list[list[str]]:
    """The per-env table's rows (after its title and header), split at spaces."""
    lines = out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("per env:"))
    assert lines[start + 1].split() == [
        "env", "episodes", "success", "95%", "CI", "reward", "turns", "invalid", "failed",
    ]  # fmt: skip
    rows = []
    for line in lines[start + 2 :]:
        if line.startswith(("trajectories", "and ")):
            break
        rows.append(line.split())
    return rows


def test_a_mixed_run_shows_each_env_with_the_librarys_numbers(mix: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    result = run("eval", "--dataset", str(mix), "--policy", "random", "-o", str(out))
    assert result.returncode == 0, result.stderr
    per_env = EvalResult.load(out).per_env
    assert sorted(per_env) == ["frozen_lake", "frozen_lake_ms_swift"]
    expected = []
    for env, s in sorted(per_env.items(), key=lambda item: -item[1]["episodes"]):
        low, high = s["success_rate_ci95"]
        invalid = s["invalid_action_rate"]
        expected.append(
            [
                env,
                str(s["episodes"]),
                f"{s['success_rate']:.3f}",
                f"{low:.3f}-{high:.3f}",
                f"{s['mean_reward']:.3f}",
                f"{s['mean_turns']:.2f}",
                "n/a" if invalid is None else f"{invalid:.1%}",
                str(s["failed_episodes"]),
            ]
        )
    assert per_env_lines(result.stdout) == expected
    assert [row[1] for row in expected] == ["30", "10"]  # most episodes first


def test_json_has_per_env_always(mix: Path) -> None:
    mixed = json.loads(run("eval", "--dataset", str(mix), "--policy", "oracle", "--json").stdout)
    assert sorted(mixed["per_env"]) == ["frozen_lake", "frozen_lake_ms_swift"]
    assert mixed["per_env"]["frozen_lake"]["episodes"] == 30
    assert mixed["per_env"]["frozen_lake_ms_swift"]["success_rate"] == 1.0
    one = run("eval", "frozen_lake", "--policy", "oracle", "-n", "5", "--json")
    summary = json.loads(one.stdout)
    overall = {key: summary[key] for key in summary["per_env"]["frozen_lake"]}
    assert summary["per_env"] == {"frozen_lake": overall}  # one env: the same numbers


def test_one_env_shows_no_per_env_table() -> None:
    result = run("eval", "frozen_lake", "--policy", "oracle", "-n", "5")
    assert result.returncode == 0, result.stderr
    assert "success rate" in result.stdout
    assert "per env" not in result.stdout


def test_with_o_dash_the_per_env_table_goes_to_stderr_too(mix: Path) -> None:
    result = run("eval", "--dataset", str(mix), "--policy", "oracle", "-o", "-")
    assert result.returncode == 0, result.stderr
    assert "per env:" in result.stderr
    assert all(json.loads(line)["turns"] for line in result.stdout.splitlines())
