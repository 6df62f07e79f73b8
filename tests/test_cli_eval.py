"""`swift-gym eval` with the random and oracle policies, run as the installed command."""

from __future__ import annotations

import json
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from cli_runner import run


def summary_of(result: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert result.stdout, result.stderr
    return json.loads(result.stdout)


def test_done_when_oracle_on_50_seeds_reports_success_rate_1(tmp_path: Path) -> None:
    result = run("eval", "frozen_lake", "--policy", "oracle", "-n", "50", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "success rate     1.000  50 of 50" in result.stdout
    assert "failed episodes      0" in result.stdout
    assert list(tmp_path.iterdir()) == []  # nothing written without -o


def test_oracle_solves_200_seeds_and_random_does_far_worse(tmp_path: Path) -> None:
    oracle = summary_of(run("eval", "frozen_lake", "--policy", "oracle", "-n", "200", "--json"))
    random = summary_of(run("eval", "frozen_lake", "--policy", "random", "-n", "200", "--json"))
    assert oracle["success_rate"] == 1.0
    assert oracle["mean_reward"] == 1.0
    assert oracle["invalid_action_rate"] == 0.0
    assert oracle["statuses"] == {"goal": 200}
    assert oracle["failed_episodes"] == 0
    assert random["success_rate"] < 0.5
    assert 0.2 < random["invalid_action_rate"] < 0.8  # half the generic replies are not actions
    assert random["episodes"] == 200
    assert set(random["statuses"]) <= {"goal", "hole", "max_turns"}


def test_eval_writes_every_trajectory_in_order(tmp_path: Path) -> None:
    out = tmp_path / "traj.jsonl"
    args = ("--policy", "random", "-n", "12", "--seed-start", "100", "--concurrency", "5")
    result = run("eval", "frozen_lake", *args, "--max-turns", "4", "-o", str(out))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["index"] for r in records] == list(range(12))
    assert [r["seed"] for r in records] == list(range(100, 112))
    first = records[0]
    assert first["env_config"] == {"name": "frozen_lake", "seed": 100}
    assert first["policy"] == "random"
    assert first["system_prompt"].startswith("You are playing FrozenLake")
    assert "You are at row" in first["observation"]
    for record in records:
        assert 1 <= record["num_turns"] == len(record["turns"]) <= 4
        assert record["total_reward"] == sum(turn["reward"] for turn in record["turns"])
        for turn in record["turns"]:
            assert set(turn) == {
                "turn", "reply", "action", "valid_action", "observation", "reward", "done", "info",
            }  # fmt: skip
            assert turn["info"]["status"] in {"ok", "invalid_action", "goal", "hole"}
            assert turn["action"] == turn["info"]["action"]
    again = tmp_path / "again.jsonl"
    run("eval", "frozen_lake", *args, "--max-turns", "4", "-o", str(again))
    assert again.read_text() == out.read_text()  # same seeds, same episodes


def test_max_turns_cuts_episodes_short(tmp_path: Path) -> None:
    result = run("eval", "frozen_lake", "--policy", "oracle", "-n", "20", "--set", "size=8",
                 "--max-turns", "2", "--json")  # fmt: skip
    summary = summary_of(result)
    assert summary["statuses"].get("max_turns", 0) > 0
    assert summary["success_rate"] < 1.0
    assert result.returncode == 0  # truncated episodes are results, not failures


def test_eval_plays_the_rows_of_a_dataset(tmp_path: Path) -> None:
    data = tmp_path / "fl.jsonl"
    assert (
        run("dataset", "frozen_lake", "-n", "8", "--seed-start", "40", "-o", str(data)).returncode
        == 0
    )
    out = tmp_path / "traj.jsonl"
    result = run(
        "eval", "--dataset", str(data), "--policy", "oracle", "-n", "5", "-o", str(out), "--json"
    )
    assert summary_of(result)["episodes"] == 5
    assert [json.loads(line)["seed"] for line in out.read_text().splitlines()] == [
        40,
        41,
        42,
        43,
        44,
    ]


def test_eval_refuses_a_dataset_with_bad_rows(tmp_path: Path) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text(
        '{"env_config": {"name": "frozen_lake", "seed": 1}}\n{"env_config": {"size": 3}}\n'
    )
    result = run("eval", "--dataset", str(data), "--policy", "oracle")
    assert result.returncode == 1
    assert f"{data}, line 2: env_config.name: no env name" in result.stderr
    assert "nothing was played" in result.stderr
    named = run("eval", "frozen_lake", "--dataset", str(data), "--policy", "oracle", "--json")
    assert named.returncode == 0  # NAME is the env of rows without one
    assert summary_of(named)["success_rate"] == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("frozen_lake",), "Missing option '--policy'"),
        (("frozen_lake", "--policy", "greedy"), "'greedy' is not one of"),
        (("--policy", "oracle"), "give an env NAME, or --dataset FILE"),
        (
            ("frozen_lake", "--policy", "oracle", "--set", "size=1"),
            "size: Input should be greater than or equal to 2",
        ),
        (("frozen_lake", "--policy", "oracle", "--set", "seed=1"), "--seed-start"),
        (("nope", "--policy", "random"), "unknown env 'nope'"),
        (("frozen_lake", "--policy", "oracle", "--concurrency", "0"), "0 is not in the range x>=1"),
        (("frozen_lake", "--policy", "oracle", "-o", "/nonexistent/dir/t.jsonl"), "does not exist"),
    ],
)
def test_eval_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    result = run("eval", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


TOY_ENVS = '''
from swift_gym import Env

class Echo(Env):
    """No oracle_reply, no sample_replies: done after one reply."""

    async def reset(self, request=None):
        return "say something", {}, ""

    async def step(self, messages):
        return "ok", 1.0, True, {"status": "said"}


class Fragile(Echo):
    """Raises on odd seeds."""

    def oracle_reply(self):
        return "hi"

    async def step(self, messages):
        if self.config.seed % 2:
            raise ValueError("odd seed")
        return "ok", 1.0, True, {"status": "said"}
'''


@pytest.fixture
def toy_site(tmp_path: Path) -> dict[str, str]:
    """A distribution `toy-envs` with envs `echo` and `fragile`, on PYTHONPATH."""
    site = tmp_path / "site"
    info = site / "toy_envs-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-envs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[swift_gym.envs]\necho = toy_envs:Echo\nfragile = toy_envs:Fragile\n"
    )
    (site / "toy_envs.py").write_text(textwrap.dedent(TOY_ENVS))
    return {"PYTHONPATH": str(site)}


def test_oracle_on_an_env_without_one_fails_clearly(toy_site: dict[str, str]) -> None:
    result = run("eval", "echo", "--policy", "oracle", env=toy_site)
    assert result.returncode == 2
    assert "env 'echo' has no oracle policy: Echo does not define oracle_reply()" in result.stderr
    info = run("info", "echo", env=toy_site)
    assert "oracle: no (the env does not define oracle_reply)" in info.stdout


def test_random_uses_generic_replies_for_an_env_without_samples(toy_site: dict[str, str]) -> None:
    summary = summary_of(
        run("eval", "echo", "--policy", "random", "-n", "10", "--json", env=toy_site)
    )
    assert summary["success_rate"] == 1.0  # done with reward after any reply
    assert summary["statuses"] == {"said": 10}
    assert summary["invalid_action_rate"] is None  # the env reports no action


def test_an_env_that_raises_fails_only_its_episodes(
    toy_site: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "fragile", "--policy", "oracle", "-n", "6", "-o", str(out), "--json", env=toy_site
    )
    assert result.returncode == 1
    summary = summary_of(result)
    assert summary["statuses"] == {"said": 3, "error": 3}
    assert summary["failed_episodes"] == 3
    assert summary["errors"] == {"step() raised ValueError: odd seed": 3}
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in records] == ["said", "error"] * 3
    human = run("eval", "fragile", "--policy", "oracle", "-n", "6", env=toy_site)
    assert human.returncode == 1
    assert "3 x step() raised ValueError: odd seed" in human.stdout


def test_the_envs_horizon_is_the_default_and_cut_off_episodes_are_told(tmp_path: Path) -> None:
    snake = 'map=["SFFFFF", "HHHHHF", "FFFFFF", "FHHHHH", "FFFFFF", "HHHHHG"]'  # 20 moves
    args = ("eval", "frozen_lake", "--policy", "oracle", "-n", "6", "--set", snake)
    natural = summary_of(run(*args, "--json"))
    assert natural["success_rate"] == 1.0 and natural["max_turns"] == 20
    assert natural["cut_off"] == 0 and natural["cut_off_hint"] is None
    cut = run(*args, "--max-turns", "10")
    assert cut.returncode == 0, cut.stderr
    assert "at most 10 turns" in cut.stdout
    assert "6 episodes were cut off at max_turns (10): raise it with --max-turns N" in cut.stdout
    summary = summary_of(run(*args, "--max-turns", "10", "--json"))
    assert summary["cut_off"] == 6 and summary["max_turns"] == 10
    assert "--max-turns" in summary["cut_off_hint"]


def test_json_says_which_env_policy_and_turn_limit_were_played() -> None:
    summary = summary_of(run("eval", "frozen_lake", "--policy", "random", "-n", "3", "--json"))
    assert summary["env"] == "frozen_lake"
    assert summary["policy"] == "random"
    assert summary["max_turns"] == 10  # frozen_lake's horizon on its default 4x4 map


def test_two_configs_of_one_env_get_a_row_each_in_the_per_env_table(tmp_path: Path) -> None:
    data = tmp_path / "sizes.jsonl"
    data.write_text(
        "".join(
            json.dumps({"env_config": {"name": "frozen_lake", "seed": seed, "size": size}}) + "\n"
            for seed in range(3)
            for size in (4, 6)
        )
    )
    shown = run("eval", "--dataset", str(data), "--policy", "oracle")
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"frozen_lake size=4 +3 +1\.000", shown.stdout)
    assert re.search(r"frozen_lake size=6 +3 +1\.000", shown.stdout)
    per_env = summary_of(run("eval", "--dataset", str(data), "--policy", "oracle", "--json"))
    assert {env: s["episodes"] for env, s in per_env["per_env"].items()} == {
        "frozen_lake size=4": 3,
        "frozen_lake size=6": 3,
    }


def test_a_piped_summary_has_no_trailing_spaces(tmp_path: Path) -> None:
    dataset = tmp_path / "two_envs.jsonl"
    names = ["frozen_lake", "frozen_lake_ms_swift"] * 10
    rows = [{"env_config": {"name": name, "seed": seed}} for seed, name in enumerate(names)]
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    for args in (("frozen_lake", "-n", "20"), ("--dataset", str(dataset))):
        result = run("eval", *args, "--policy", "random")
        assert result.returncode == 0, result.stderr
        assert "success rate" in result.stdout
        assert ("per env" in result.stdout) == ("--dataset" in args)
        padded = [line for line in result.stdout.splitlines() if line != line.rstrip()]
        assert padded == [], padded


def test_eval_refuses_to_replace_a_file_of_episodes_without_force(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    first = run("eval", "frozen_lake", "--policy", "random", "-n", "5", "-o", str(out))
    assert first.returncode == 0, first.stderr
    kept = out.read_text()
    again = run("eval", "frozen_lake", "--policy", "oracle", "-n", "2", "-o", str(out))
    assert again.returncode == 2
    assert again.stdout == ""
    assert (
        f"error: {out} exists and is not empty: eval would replace what it holds. Give -o a new "
        "file, or --force to replace it"
    ) in " ".join(again.stderr.split())
    assert out.read_text() == kept  # nothing lost
    forced = run("eval", "frozen_lake", "--policy", "oracle", "-n", "2", "-o", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert [json.loads(line)["policy"] for line in out.read_text().splitlines()] == ["oracle"] * 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert (
        run("eval", "frozen_lake", "--policy", "oracle", "-n", "1", "-o", str(empty)).returncode
        == 0
    )
