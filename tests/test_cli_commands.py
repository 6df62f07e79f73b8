"""`swift-gym` list, info, plugins, dataset, validate, play, replay and report, each run as
the installed command in a new process, with its output and exit code."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text(
        "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows)
    )
    return path


# --- the command itself -------------------------------------------------------------------


def test_help_lists_every_command_and_the_exit_codes() -> None:
    result = run("--help")
    assert result.returncode == 0
    for command in (
        "list",
        "info",
        "plugins",
        "validate",
        "dataset",
        "play",
        "eval",
        "replay",
        "report",
        "export",
    ):
        assert re.search(rf"^\s+{command}\s", result.stdout, re.M), command
    assert "Exit codes: 0 ok; 1 problems found" in " ".join(result.stdout.split())


def test_python_dash_m_runs_the_same_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "swift_gym", "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert result.stdout.startswith("swift-gym, version ")


def test_an_unknown_option_is_a_usage_error() -> None:
    result = run("list", "--bogus")
    assert result.returncode == 2
    assert "No such option" in result.stderr
    assert "--bogus" in result.stderr


def test_no_color_means_no_escape_codes() -> None:
    result = run("info", "frozen_lake")
    assert result.returncode == 0
    assert "\x1b[" not in result.stdout + result.stderr


# --- list, info, plugins --------------------------------------------------------------------


def test_list_shows_frozen_lake_with_its_distribution() -> None:
    result = run("list")
    assert result.returncode == 0
    assert re.search(r"^frozen_lake\s+swift-gym-frozen-lake\s+0\.1\.0\s", result.stdout, re.M)
    listed = json.loads(run("list", "--json").stdout)
    assert [(e["name"], e["distribution"], e["target"]) for e in listed] == [
        ("frozen_lake", "swift-gym-frozen-lake", "swift_gym_frozen_lake:FrozenLakeEnv"),
        (
            "frozen_lake_ms_swift",
            "swift-gym-frozen-lake",
            "swift_gym_frozen_lake:MsSwiftFrozenLakeEnv",
        ),
        ("mcp_tools", "swift-gym", "swift_gym.mcp.env:McpToolsEnv"),  # the core's MCP env
        ("openenv", "swift-gym", "swift_gym.remote.env:OpenEnvEnv"),  # the core's remote env
    ]


def test_list_with_no_plugins_says_how_to_get_one() -> None:
    result = run("list", env={"SWIFT_GYM_LOAD_PLUGINS": ""})
    assert result.returncode == 0
    assert "No env is installed: install an env package, e.g. FrozenLake" in result.stdout


def test_info_shows_fields_with_types_defaults_and_bounds() -> None:
    result = run("info", "frozen_lake")
    assert result.returncode == 0
    assert "from swift-gym-frozen-lake 0.1.0" in result.stdout
    assert "oracle: yes" in result.stdout
    assert re.search(r"^size  integer  default 4  \[2, 64\]$", result.stdout, re.M)
    assert re.search(r"^p  number  default 0\.8  \(0, 1\]$", result.stdout, re.M)
    assert "one of first_tag, last_tag, single_tag, exact, upstream" in result.stdout
    fields = {
        f["name"]: f for f in json.loads(run("info", "frozen_lake", "--json").stdout)["fields"]
    }
    assert fields["max_steps"] == {
        "name": "max_steps",
        "type": "integer | null",
        "default": "null",
        "bounds": "[1, 10000]",
        "description": fields["max_steps"]["description"],
    }


def test_info_schema_is_the_json_schema() -> None:
    result = run("info", "frozen_lake", "--schema")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    assert schema["title"] == "FrozenLakeConfig"
    assert schema["additionalProperties"] is False
    assert schema["properties"]["size"]["maximum"] == 64


def test_info_of_an_unknown_env_suggests_and_exits_2() -> None:
    result = run("info", "frozen_lak")
    assert result.returncode == 2
    assert result.stderr.startswith("error: unknown env 'frozen_lak'. Did you mean 'frozen_lake'?")
    assert "Traceback" not in result.stderr


def test_plugins_lists_loaded_and_failed_plugins(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "broken_plugin-2.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 2.0\n")
    (info / "entry_points.txt").write_text("[swift_gym.plugins]\nbroken = broken_plugin_mod\n")
    (site / "broken_plugin_mod.py").write_text("raise ImportError('needs libfoo')\n")
    ok = run("plugins")
    assert ok.returncode == 0
    assert "swift-gym-frozen-lake:frozen_lake" in ok.stdout
    assert "built in" in ok.stdout
    broken = run("plugins", "--json", env={"PYTHONPATH": str(site)})
    assert broken.returncode == 1
    failed = [p for p in json.loads(broken.stdout)["plugins"] if p["error"]]
    assert failed == [
        {
            "name": "broken-plugin:broken",
            "distribution": "broken-plugin",
            "version": "2.0",
            "builtin": False,
            "error": "ImportError: needs libfoo",
            "problems": [],
            "load_seconds": failed[0]["load_seconds"],
        }
    ]
    table = run("plugins", env={"PYTHONPATH": str(site)})
    assert table.returncode == 1
    assert "failed: ImportError: needs libfoo" in table.stdout


# --- dataset and validate -------------------------------------------------------------------


def test_done_when_dataset_then_validate_exits_0(tmp_path: Path) -> None:
    out = tmp_path / "fl.jsonl"
    made = run("dataset", "frozen_lake", "-n", "64", "-o", str(out))
    assert made.returncode == 0, made.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 64
    assert rows[0] == {
        "messages": [{"role": "user", "content": "<placeholder>"}],
        "env_config": {"name": "frozen_lake", "seed": 0},
    }
    assert [row["env_config"]["seed"] for row in rows] == list(range(64))
    checked = run("validate", str(out))
    assert checked.returncode == 0, checked.stdout
    assert "OK: all 64 rows are valid" in checked.stdout


def test_dataset_is_deterministic_and_parses_set_values(tmp_path: Path) -> None:
    args = ("dataset", "frozen_lake", "-n", "5", "--seed-start", "10")
    sets = ("--set", "size=6", "--set", "is_slippery=true", "--set", "max_steps=20")
    first, second = run(*args, *sets), run(*args, *sets)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    rows = [json.loads(line) for line in first.stdout.splitlines()]
    assert rows[0]["env_config"] == {
        "name": "frozen_lake", "seed": 10, "size": 6, "is_slippery": True, "max_steps": 20,
    }  # fmt: skip
    assert "wrote 5 rows to stdout" in first.stderr


def test_dataset_mix_splits_rows_by_weight_reproducibly(tmp_path: Path) -> None:
    mix = "frozen_lake:3,swift-gym-frozen-lake:frozen_lake:1"
    first = run("dataset", "--mix", mix, "-n", "40", "--seed-start", "3")
    again = run("dataset", "--mix", mix, "-n", "40", "--seed-start", "3")
    other = run("dataset", "--mix", mix, "-n", "40", "--seed-start", "4")
    assert first.returncode == 0, first.stderr
    names = [json.loads(line)["env_config"]["name"] for line in first.stdout.splitlines()]
    assert names.count("frozen_lake") == 30
    assert names.count("swift-gym-frozen-lake:frozen_lake") == 10
    assert first.stdout == again.stdout
    assert first.stdout != other.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("frozen_lake", "--set", "size=big"), "size: Input should be a valid integer (got 'big')"),
        (("frozen_lake", "--set", "seed=1"), "use --seed-start"),
        (("frozen_lake", "--set", "sizes=5"), "did you mean 'size'?"),
        (("frozen_lak",), "unknown env 'frozen_lak'"),
        ((), "give an env NAME or --mix"),
        (("frozen_lake", "--mix", "frozen_lake:1"), "not both"),
        (("--mix", "frozen_lake:0"), "weight above 0"),
        (("frozen_lake", "-n", "0"), "0 is not in the range x>=1"),
    ],
)
def test_dataset_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    result = run("dataset", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_dataset_with_an_unbuildable_row_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    out = tmp_path / "never.jsonl"
    # size 64 with p 0.0001: seed 2 has no solvable map in 1000 draws (seeds 0 and 1 do).
    result = run(
        "dataset", "frozen_lake", "-n", "3", "--set", "size=64", "--set", "p=0.0001", "-o", str(out)
    )
    assert result.returncode == 1
    assert "row 2 (frozen_lake, seed 2): env_config.p: no solvable 64x64 map" in result.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_validate_names_each_bad_line_with_field_and_reason(tmp_path: Path) -> None:
    good = {"messages": [], "env_config": {"name": "frozen_lake", "seed": 1}}
    path = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            good,
            {"env_config": {"name": "frozen_lake", "size": "big", "colour": 1}},
            "",
            "{not json",
            {"env_config": {"name": "frozen_lak"}},
            {"env_config": {"seed": 3}},
            [1, 2],
            good,
        ],
    )
    result = run("validate", str(path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert (
        "line 2 (frozen_lake): env_config.size: Input should be a valid integer (got 'big')"
        in lines
    )
    assert any(
        line.startswith("line 2 (frozen_lake): env_config.colour: unknown key (got 1)")
        for line in lines
    )
    assert any(line.startswith("line 4: not valid JSON") for line in lines)
    assert any(
        line.startswith(
            "line 5 (frozen_lak): env_config.name: unknown env (got 'frozen_lak'); "
            "did you mean 'frozen_lake'?"
        )
        for line in lines
    )
    assert any(line.startswith("line 6 (no env): env_config.name: no env name") for line in lines)
    assert "line 7: a row must be a JSON object, got list" in lines
    assert "FAILED: 5 of 7 rows are bad" in result.stdout
    assert not any(line.startswith(("line 1 ", "line 8 ")) for line in lines)


def test_validate_gym_env_names_rows_without_a_name_and_row_names_win(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rows.jsonl",
        [{"env_config": {"seed": 3}}, {"env_config": {"name": "nope", "seed": 3}}],
    )
    result = run("validate", str(path), "--gym-env", "frozen_lake", "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["envs"] == {"frozen_lake": {"rows": 1, "bad": 0}, "nope": {"rows": 1, "bad": 1}}
    assert [(p["line"], p["field"]) for p in report["problems"]] == [(2, "env_config.name")]


def test_validate_builds_envs_unless_told_not_to(tmp_path: Path) -> None:
    row = {"env_config": {"name": "frozen_lake", "size": 64, "p": 0.0001, "seed": 2}}
    path = write_jsonl(tmp_path / "unsolvable.jsonl", [row])
    built = run("validate", str(path))
    assert built.returncode == 1
    assert "line 1 (frozen_lake): env_config.p: no solvable 64x64 map in 1000 draws" in built.stdout
    schema_only = run("validate", "--no-build", str(path))
    assert schema_only.returncode == 0


def test_validate_errors_on_missing_and_empty_files(tmp_path: Path) -> None:
    missing = run("validate", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2
    assert "does not exist" in missing.stderr
    empty = write_jsonl(tmp_path / "empty.jsonl", ["", ""])
    result = run("validate", str(empty))
    assert result.returncode == 1
    assert "no rows" in result.stderr


# --- play -----------------------------------------------------------------------------------


def test_play_shows_what_the_model_sees_and_reads_piped_replies() -> None:
    # seed 0: G F F F / F F S F / F F H F / F F F F; the start is at row 1, col 2.
    replies = "<action>up</action>\nhello [bold]there[/bold]\n<action>left</action>\n"
    replies += "<action>left</action>\n"
    result = run("play", "frozen_lake", "--seed", "0", stdin=replies)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "You are playing FrozenLake on a square grid." in out
    assert "G F F F\nF F P F\nF F H F\nF F F F\n\nYou are at row 1, col 2." in out
    assert "hello [bold]there[/bold]" in out  # shown verbatim, never as markup
    assert "No valid action found: the reply has no <action>...</action> tag." in out
    assert "You reached the goal. The episode is over." in out
    assert out.rstrip().endswith("episode over: status goal; 4 turns, total reward 1")


def test_play_stops_at_end_of_input() -> None:
    result = run(
        "play", "frozen_lake", "--seed", "0", "--set", "size=5", stdin="<action>up</action>\n"
    )
    assert result.returncode == 0
    summary = "stopped before the episode ended (end of input): 1 turn, total reward 0"
    assert summary in result.stdout


def test_play_with_a_bad_config_exits_2() -> None:
    result = run("play", "frozen_lake", "--set", "p=2", stdin="")
    assert result.returncode == 2
    assert "p: Input should be less than or equal to 1 (got 2)" in result.stderr


# --- replay and report ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "random.jsonl"
    result = run("eval", "frozen_lake", "--policy", "random", "-n", "30", "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_replay_shows_an_episode_turn_by_turn(trajectories: Path) -> None:
    record = [json.loads(line) for line in trajectories.read_text().splitlines()][4]
    result = run("replay", str(trajectories), "--index", "4")
    assert result.returncode == 0
    out = result.stdout
    assert f"episode 4: frozen_lake seed 4, policy random: {record['status']}" in out
    assert record["system_prompt"] in out
    for turn in record["turns"]:
        assert f"assistant (turn {turn['turn']})" in out
        assert turn["observation"] in out
    assert out.count("assistant (turn") == record["num_turns"]


def test_replay_filters_by_status_and_lists(trajectories: Path) -> None:
    records = [json.loads(line) for line in trajectories.read_text().splitlines()]
    goals = [r["index"] for r in records if r["status"] == "goal"]
    result = run("replay", str(trajectories), "--status", "goal", "--list")
    assert result.returncode == 0
    shown = [int(m) for m in re.findall(r"^.\s(\d+)\s+.\s+frozen_lake", result.stdout, re.M)]
    assert shown == goals


def test_replay_finding_no_match_exits_1_and_a_file_of_no_episodes_exits_2(
    trajectories: Path, tmp_path: Path
) -> None:
    missing = run("replay", str(trajectories), "--index", "999")
    assert missing.returncode == 1  # it ran as asked and found nothing: not a usage error
    assert "no episode with index 999 among the 30" in missing.stderr
    not_trajectories = write_jsonl(tmp_path / "rows.jsonl", [{"env_config": {}}])
    wrong = run("replay", str(not_trajectories))
    assert wrong.returncode == 2
    assert "line 1: not an episode record" in wrong.stderr


def test_report_writes_one_self_contained_html_page(trajectories: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = run("report", str(trajectories), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "(1 run, 30 episodes)" in result.stderr
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert html.count("<svg") == 4  # statuses, rewards, turns, status by seed
    assert "run A, frozen_lake: status by seed" in html
    assert "<td>eval</td><td>30</td><td>frozen_lake</td><td>random</td>" in html
    assert html.count('<details class="episode"') == 30
    assert "No run here comes from training" in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing fetched


def test_validate_reports_an_env_that_fails_to_load_once_not_once_per_row(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "gym_broke-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gym-broke\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[swift_gym.envs]\nbroke = gym_broke_missing:Env\n")
    rows = [{"env_config": {"name": "broke", "seed": seed}} for seed in range(5)]
    rows.insert(2, {"env_config": {"name": "frozen_lake", "size": 1}})
    dataset = write_jsonl(tmp_path / "rows.jsonl", rows)
    result = run("validate", str(dataset), env={"PYTHONPATH": str(site)})
    assert result.returncode == 1
    assert result.stdout.count("failed to load") == 1, result.stdout
    first = next(line for line in result.stdout.splitlines() if "failed to load" in line)
    assert first.startswith("line 1 (broke): env_config.name: env 'broke' from gym-broke 1.0")
    assert "SWIFT_GYM_DISABLE_PLUGINS=gym-broke" in first
    assert "  (the same for every row of env 'broke': not repeated)" in result.stdout
    assert re.search(r"^line 3 \(frozen_lake\): env_config\.size", result.stdout, re.M)
    assert re.search(r"broke +│ 5 +│ 0 +│ 5 ", result.stdout)
    report = json.loads(
        run("validate", str(dataset), "--json", env={"PYTHONPATH": str(site)}).stdout
    )
    assert [problem["line"] for problem in report["problems"]] == [1, 2, 3, 4, 5, 6]
