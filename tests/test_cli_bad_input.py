"""Hostile and odd input to the commands that read data: deep JSON, pipes, NaN, explicit nulls,
huge values and keys, misspelt keys, lone surrogates. Each is a clear report (a bad row with its
line number) and the command goes on; none ends in a traceback. Installed command, new process.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from cli_runner import SCRIPT, run

GOOD = {"env_config": {"name": "frozen_lake", "seed": 1}}


def write_rows(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def strict_json(text: str) -> Any:
    """Parse as strict JSON parsers do: NaN, Infinity and -Infinity are errors."""

    def refuse(constant: str) -> None:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr[-2000:]


# --- E.4: deep nesting ----------------------------------------------------------------------

DEPTHS = [101, 900, 5000, 100_000]
"""Just past the bound; deep but parseable by json (pydantic, repr and dumps recurse on it);
past json's own limit; far past it."""


@pytest.mark.parametrize("depth", DEPTHS)
def test_validate_reports_deep_json_as_a_bad_line_and_goes_on(tmp_path: Path, depth: int) -> None:
    deep = '{"env_config": {"name": "frozen_lake", "map": ' + nested(depth) + "}}"
    path = write_rows(tmp_path / "deep.jsonl", [GOOD, deep, GOOD])
    for args in ((), ("--json",)):
        result = run("validate", *args, str(path))
        no_traceback(result)
        assert result.returncode == 1
    text = run("validate", str(path)).stdout
    assert "line 2: refused: JSON nested more than 100 levels deep" in text
    report = strict_json(run("validate", "--json", str(path)).stdout)
    assert report["rows"] == 3 and report["bad_rows"] == 1
    assert [p["line"] for p in report["problems"]] == [2]


def test_json_just_inside_the_bound_is_checked_normally(tmp_path: Path) -> None:
    # the row and env_config are 2 levels, the value 98: 100 in all
    row = '{"env_config": {"name": "frozen_lake", "x": ' + nested(98) + "}}"
    path = write_rows(tmp_path / "edge.jsonl", [row])
    result = run("validate", "--json", str(path))
    no_traceback(result)
    problems = strict_json(result.stdout)["problems"]
    assert [(p["line"], p["field"]) for p in problems] == [(1, "env_config.x")]
    assert "value_excerpt" in problems[0]


@pytest.mark.parametrize("depth", [900, 100_000])
def test_eval_dataset_refuses_a_deep_row_by_line_number(tmp_path: Path, depth: int) -> None:
    deep = '{"env_config": {"name": "frozen_lake", "map": ' + nested(depth) + "}}"
    path = write_rows(tmp_path / "deep.jsonl", [GOOD, deep])
    result = run("eval", "--dataset", str(path), "--policy", "random")
    no_traceback(result)
    assert result.returncode == 1
    assert f"{path}, line 2: refused: JSON nested more than 100 levels deep" in result.stderr


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("eval") / "t.jsonl"
    made = run("eval", "frozen_lake", "--policy", "random", "-n", "3", "-o", str(path))
    assert made.returncode == 0, made.stderr
    return path


@pytest.mark.parametrize("depth", [900, 100_000])
def test_replay_and_report_skip_a_deep_line_by_number_and_go_on(
    trajectories: Path, tmp_path: Path, depth: int
) -> None:
    lines = trajectories.read_text().splitlines()
    deep = '{"turns": [], "info": ' + nested(depth) + "}"
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([lines[0], deep, *lines[1:]]) + "\n")
    listed = run("replay", str(path), "--list")
    no_traceback(listed)
    assert f"{path}, line 2: refused: JSON nested more than 100 levels deep" in listed.stderr
    assert len([line for line in listed.stdout.splitlines() if "frozen_lake" in line]) == 3
    page = tmp_path / "t.html"
    report = run("report", str(path), "-o", str(page))
    no_traceback(report)
    assert report.returncode == 0
    assert "line 2: refused" in report.stderr
    assert "3 episodes" in page.read_text()


@pytest.mark.parametrize(
    ("field", "value"),
    [("total_reward", "lots"), ("total_reward", True), ("num_turns", 2.5), ("turns", [1])],
)
def test_replay_and_report_skip_a_record_with_fields_they_cannot_count(
    trajectories: Path, tmp_path: Path, field: str, value: Any
) -> None:
    lines = trajectories.read_text().splitlines()
    broken = {**json.loads(lines[1]), field: value}
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(broken), lines[2]]) + "\n")
    page = tmp_path / "t.html"
    report = run("report", str(path), "-o", str(page))
    no_traceback(report)
    assert report.returncode == 0
    said = report.stderr.replace("\n", "")
    assert "line 2: not an episode record (" in said and repr(field) in said
    assert "2 episodes" in page.read_text()
    listed = run("replay", str(path), "--list")
    no_traceback(listed)
    assert len([line for line in listed.stdout.splitlines() if "frozen_lake" in line]) == 2


@pytest.mark.parametrize("depth", [900, 60_000])  # 60,000: an argument can hold 128 KiB
def test_set_refuses_deep_json_clearly(depth: int) -> None:
    for command in (("dataset", "frozen_lake"), ("eval", "frozen_lake", "--policy", "random")):
        result = run(*command, "-n", "1", "--set", f"map={nested(depth)}")
        no_traceback(result)
        assert result.returncode == 2
        assert "nested more than 100 levels deep" in result.stderr


# --- E.5: pipes and stdin, strict JSON --------------------------------------------------------


def test_validate_reads_stdin_with_a_dash(tmp_path: Path) -> None:
    rows = "".join(json.dumps(GOOD) + "\n" for _ in range(3))
    result = run("validate", "-", stdin=rows)
    assert result.returncode == 0, result.stderr
    assert "OK: all 3 rows are valid" in result.stdout
    bad = run("validate", "-", stdin=json.dumps({"env_config": {"name": "nope"}}) + "\n")
    assert bad.returncode == 1
    assert "line 1 (nope): env_config.name: unknown env" in bad.stdout


def test_validate_reads_dev_stdin_and_process_substitution(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "rows.jsonl", [GOOD, GOOD])
    dev = run("validate", "/dev/stdin", stdin=path.read_text())
    assert dev.returncode == 0, dev.stderr
    assert "OK: all 2 rows are valid" in dev.stdout
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    substituted = subprocess.run(
        ["bash", "-c", f'"{SCRIPT}" validate <(cat "{path}")'],
        capture_output=True, text=True, timeout=120, env={**environ, "NO_COLOR": "1"},
    )  # fmt: skip
    assert substituted.returncode == 0, substituted.stderr
    assert "OK: all 2 rows are valid" in substituted.stdout


def test_validate_reads_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "rows"
    os.mkfifo(fifo)
    text = "".join(json.dumps(GOOD) + "\n" for _ in range(4))

    def feed() -> None:
        with open(fifo, "w") as writer:  # blocks until validate opens it
            writer.write(text)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    result = run("validate", str(fifo))
    feeder.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert "OK: all 4 rows are valid" in result.stdout


def test_eval_dataset_says_a_pipe_must_be_a_file() -> None:
    result = run("eval", "--dataset", "/dev/stdin", "--policy", "random", stdin="{}\n")
    no_traceback(result)
    assert result.returncode == 2
    assert "not a regular file" in result.stderr


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_validate_json_is_strict_json(tmp_path: Path, constant: str) -> None:
    row = '{"env_config": {"name": "frozen_lake", "p": ' + constant + "}}"
    result = run("validate", "--json", str(write_rows(tmp_path / "nan.jsonl", [row])))
    assert result.returncode == 1
    problems = strict_json(result.stdout)["problems"]
    assert problems[0]["field"] == "env_config.p"
    assert problems[0]["value_excerpt"] in ("nan", "inf", "-inf")


@pytest.mark.parametrize(
    "args",
    [
        ("list", "--json"),
        ("info", "frozen_lake", "--json"),
        ("plugins", "--json"),
        ("eval", "frozen_lake", "--policy", "random", "-n", "2", "--json"),
    ],
)
def test_every_json_output_is_strict_json(args: tuple[str, ...]) -> None:
    result = run(*args)
    no_traceback(result)
    strict_json(result.stdout)


# --- E.6: an explicit null name -------------------------------------------------------------


def test_validate_resolves_names_as_ms_swift_does(tmp_path: Path) -> None:
    rows = [
        {"env_config": {"name": None, "seed": 1}},  # ms-swift: name None, not --gym_env
        {"env_config": {"seed": 2}},  # ms-swift: --gym_env
        {"messages": []},  # no env_config: {} and --gym_env
    ]
    path = write_rows(tmp_path / "rows.jsonl", rows)
    result = run("validate", "--gym-env", "frozen_lake", str(path))
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if line.startswith("line ")]
    assert len(lines) == 1
    assert lines[0].startswith("line 1 (no env): env_config.name: is null")
    assert "does not fall back to --gym_env" in lines[0]
    assert "FAILED: 1 of 3 rows are bad" in result.stdout


def test_eval_dataset_refuses_a_null_name_too(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "rows.jsonl", [{"env_config": {"name": None, "seed": 1}}])
    result = run("eval", "frozen_lake", "--dataset", str(path), "--policy", "random")
    no_traceback(result)
    assert result.returncode == 1
    assert "line 1: env_config.name: is null" in result.stderr
    ok = write_rows(tmp_path / "ok.jsonl", [{"env_config": {"seed": 1}}])
    played = run("eval", "frozen_lake", "--dataset", str(ok), "--policy", "random", "--json")
    assert played.returncode == 0, played.stderr
    assert strict_json(played.stdout)["episodes"] == 1


# --- E.7: huge counts, values and key sets ----------------------------------------------------


def test_dataset_refuses_more_rows_than_seeds_clearly() -> None:
    result = run("dataset", "frozen_lake", "-n", "100000000000000000000")
    no_traceback(result)
    assert result.returncode == 2
    assert "past the largest seed 18446744073709551615" in result.stderr
    mix = run("dataset", "--mix", "frozen_lake:1", "-n", str(2**64), "--seed-start", "1")
    assert mix.returncode == 2
    assert "past the largest seed" in mix.stderr


def test_dataset_mix_streams_exact_counts() -> None:
    mix = "frozen_lake:3,swift-gym-frozen-lake:frozen_lake:1"
    result = run("dataset", "--mix", mix, "-n", "1000", "--no-build")
    assert result.returncode == 0, result.stderr
    names = [json.loads(line)["env_config"]["name"] for line in result.stdout.splitlines()]
    assert names.count("frozen_lake") == 750
    assert names[:20].count("frozen_lake") not in (0, 20)  # shuffled, not in blocks


def test_validate_cuts_a_huge_value(tmp_path: Path) -> None:
    huge = "x" * 20_000_000
    path = write_rows(
        tmp_path / "huge.jsonl", [{"env_config": {"name": "frozen_lake", "map": huge}}]
    )
    for args in (("--json",), ()):
        result = run("validate", *args, str(path))
        no_traceback(result)
        assert result.returncode == 1
        assert len(result.stdout) < 5_000
    problems = strict_json(run("validate", "--json", str(path)).stdout)["problems"]
    assert "value" not in problems[0]
    assert "..." in problems[0]["value_excerpt"]


def test_validate_caps_the_problems_of_a_row_with_200000_unknown_keys(tmp_path: Path) -> None:
    env_config = {"name": "frozen_lake", **{f"key{i}": i for i in range(200_000)}}
    path = write_rows(tmp_path / "keys.jsonl", [{"env_config": env_config}, GOOD])
    text = run("validate", str(path))
    no_traceback(text)
    assert text.returncode == 1
    assert len(text.stdout) < 20_000
    assert "line 1 (frozen_lake): and 199980 more problems in this row" in text.stdout
    assert "FAILED: 1 of 2 rows are bad" in text.stdout
    report = strict_json(run("validate", "--json", str(path)).stdout)
    assert len(report["problems"]) == 21
    assert report["problems"][-1]["reason"].startswith("and 199980 more problems")


def test_validate_json_caps_the_problem_list_and_counts_the_rest(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "bad.jsonl", ["{not json"] * 1500)
    report = strict_json(run("validate", "--json", str(path)).stdout)
    assert report["bad_rows"] == 1500
    assert len(report["problems"]) == 1000
    assert report["problems_omitted"] == 500


def test_a_huge_or_hostile_env_name_is_bounded_and_escaped(tmp_path: Path) -> None:
    rows = [{"env_config": {"name": "n" * 1_000_000}}, {"env_config": {"name": "\x1b[2J\ud800"}}]
    path = write_rows(tmp_path / "names.jsonl", rows)
    result = run("validate", str(path))
    no_traceback(result)
    assert result.returncode == 1
    assert len(result.stdout) < 10_000
    assert "\x1b" not in result.stdout
    assert "\\x1b[2J\\ud800" in result.stdout


# --- E.8: a misspelt top-level key --------------------------------------------------------------


@pytest.mark.parametrize("gym_env", [(), ("--gym-env", "frozen_lake")])
def test_a_misspelt_env_config_key_gets_a_did_you_mean(
    tmp_path: Path, gym_env: tuple[str, ...]
) -> None:
    path = write_rows(tmp_path / "typo.jsonl", [{"env_confg": {"name": "frozen_lake", "size": 6}}])
    result = run("validate", *gym_env, str(path))
    assert result.returncode == 1
    assert (
        "env_config: missing, but the row has the key 'env_confg'; did you mean 'env_config'?"
        in result.stdout
    )


# --- C.2: lone surrogates in a row ----------------------------------------------------------


def test_validate_reports_a_row_with_a_lone_surrogate(tmp_path: Path) -> None:
    row = {"env_config": {"name": "frozen_lake", "map": "\ud800"}}
    path = write_rows(tmp_path / "s.jsonl", [row, GOOD])
    text = run("validate", str(path))
    no_traceback(text)
    assert text.returncode == 1
    assert "env_config.map" in text.stdout and "\\ud800" in text.stdout
    result = run("validate", "--json", str(path))
    no_traceback(result)
    report = strict_json(result.stdout)
    values = {p["field"]: p.get("value") for p in report["problems"]}
    assert values["env_config.map"] == "\ud800"  # read back exactly
    assert report["rows"] == 2 and report["bad_rows"] == 1


def test_validate_reports_a_lone_surrogate_in_a_key_and_a_name(tmp_path: Path) -> None:
    rows = [
        {"env_config": {"name": "frozen_lake", "\udfff": 1}},
        {"env_config": {"name": "\ud800"}},
    ]
    path = write_rows(tmp_path / "s.jsonl", [*rows, GOOD])
    for args in ((), ("--json",)):
        result = run("validate", *args, str(path))
        no_traceback(result)
        assert result.returncode == 1
    report = strict_json(run("validate", "--json", str(path)).stdout)
    assert [p["line"] for p in report["problems"]] == [1, 2]
    assert report["envs"]["'\\ud800'"] == {"rows": 1, "bad": 1}
