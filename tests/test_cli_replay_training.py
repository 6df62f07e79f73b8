"""`swift-gym replay` on what training wrote (SWIFT_GYM_TRAJECTORIES=DIR: one file per process)
and on several paths at once, run as the installed command.

The records are built by the scheduler's own `episode_record` and `encoded_line`, so they are
what a `swift rlhf` rank or a `swift rollout` worker writes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run

from swift_gym.ms_swift.trajectory_log import encoded_line, episode_record, turn_record

OK = {"status": "ok", "action": "up", "metrics": {"success": 0.0, "valid_action": 1.0}}
GOAL = {"status": "goal", "action": "up", "metrics": {"success": 1.0, "valid_action": 1.0}}
HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def played(
    sequence: int,
    step: int | None,
    rank: int | None,
    env: str = "frozen_lake",
    host: str = "node1",
    pid: int = 100,
    reply: str = "<action>up</action>",
    goal: bool = False,
) -> dict[str, Any]:
    episode = {
        "env": env,
        "env_config": {"name": env, "seed": 40 + sequence},
        "system_prompt": f"rules of {env}",
        "observation": f"start {sequence}",
        "reset_info": {},
        "error": None,
    }
    turns = [turn_record(1, reply, "after", 1.0 if goal else 0.0, goal, GOAL if goal else OK)]
    where = {"step": step, "time": 1.7e9 + sequence, "sequence": sequence}
    where |= {"host": host, "pid": pid, "rank": rank}
    return episode_record(episode, turns, 1.0 if goal else 0.0, goal, where)


def write(path: Path, records: list[dict[str, Any]], tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(encoded_line(record) for record in records) + tail)
    return path


RANK1 = "node1-101-20240101T000000Z.jsonl"
RANK0 = "node1-100-20240101T000500Z.jsonl"
WORKER = "node2-7-20240101T000000Z.jsonl"


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    """Two trainer ranks and a `swift rollout` worker (no step, no rank); rank 1's file is
    written first but sorts after rank 0's."""
    directory = tmp_path / "trajectories"
    directory.mkdir()
    write(
        directory / RANK1,
        [played(0, 0, 1, pid=101), played(1, 5, 1, "maze", pid=101), played(2, 10, 1, pid=101)],
    )
    write(directory / RANK0, [played(0, 0, 0), played(1, 5, 0), played(2, 10, 0, goal=True)])
    write(directory / WORKER, [played(0, None, None, host="node2", pid=7)])
    (directory / ".swift-gym-partial.jsonl").write_text("not read\n")  # hidden: left out
    (directory / "notes.txt").write_text("not read\n")
    return directory


def listed(out: str) -> list[list[str]]:
    """The body rows of a `--list` table, as their cells."""
    rows = [line for line in out.splitlines() if line.startswith("│")]
    return [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]


def headlines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("episode ")]


def test_a_directory_lists_files_in_name_order_and_each_file_in_its_order(run_dir: Path) -> None:
    result = run("replay", str(run_dir), "--list")
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if line.startswith("┃"))
    assert [cell.strip() for cell in header.strip("┃").split("┃")] == [
        "index", "step", "process", "env", "seed", "status", "turns", "reward", "file", "error",
    ]  # fmt: skip
    rows = listed(result.stdout)
    assert [(row[8], row[0], row[1], row[2]) for row in rows] == [
        (RANK0, "0", "0", "rank 0"),
        (RANK0, "1", "5", "rank 0"),
        (RANK0, "2", "10", "rank 0"),
        (RANK1, "0", "0", "rank 1"),
        (RANK1, "1", "5", "rank 1"),
        (RANK1, "2", "10", "rank 1"),
        (WORKER, "0", "none", "node2 pid 7"),
    ]
    assert rows[2][5] == "goal" and rows[4][3] == "maze"


def test_a_training_headline_says_step_process_and_file(run_dir: Path) -> None:
    result = run("replay", str(run_dir))
    assert result.returncode == 0, result.stderr
    shown = headlines(result.stdout)
    assert len(shown) == 7
    assert shown[2] == (
        f"episode 2 (step 10, rank 0, {RANK0}): frozen_lake seed 42, policy training: "
        "goal after 1 turn, total reward 1"
    )
    assert shown[6].startswith(f"episode 0 (no step, node2 pid 7, {WORKER}): frozen_lake seed 40")
    # the same prompt in the next file is not repeated, and says where it was shown
    assert f"(same system prompt as episode 0 of {RANK0})" in result.stdout


def test_one_training_file_alone_still_names_itself(run_dir: Path) -> None:
    result = run("replay", str(run_dir / RANK1), "--index", "1")
    assert result.returncode == 0, result.stderr
    assert headlines(result.stdout) == [
        f"episode 1 (step 5, rank 1, {RANK1}): maze seed 41, policy training: "
        "max_turns after 1 turn, total reward 0"
    ]


@pytest.mark.parametrize(
    ("step", "wanted"),
    [
        ("5", [(RANK0, "1"), (RANK1, "1")]),
        ("5:10", [(RANK0, "1"), (RANK0, "2"), (RANK1, "1"), (RANK1, "2")]),  # both included
        ("10:", [(RANK0, "2"), (RANK1, "2")]),
        (":0", [(RANK0, "0"), (RANK1, "0")]),  # never the worker, which has no step
    ],
)
def test_step_picks_a_step_or_a_range(run_dir: Path, step: str, wanted: list[Any]) -> None:
    result = run("replay", str(run_dir), "--list", "--step", step)
    assert result.returncode == 0, result.stderr
    assert [(row[8], row[0]) for row in listed(result.stdout)] == wanted


def test_index_matches_in_each_file_and_env_and_status_narrow(run_dir: Path) -> None:
    each = run("replay", str(run_dir), "--list", "--index", "0")
    assert [row[8] for row in listed(each.stdout)] == [RANK0, RANK1, WORKER]
    maze = run("replay", str(run_dir), "--list", "--env", "maze")
    assert [(row[8], row[0]) for row in listed(maze.stdout)] == [(RANK1, "1")]
    goal = run("replay", str(run_dir), "--env", "frozen_lake", "--status", "goal", "--step", "10")
    assert [line.split(":")[0] for line in headlines(goal.stdout)] == [
        f"episode 2 (step 10, rank 0, {RANK0})"
    ]


def test_nothing_matching_names_the_filters_the_count_and_what_there_is(run_dir: Path) -> None:
    result = run("replay", str(run_dir), "--step", "50:60", "--env", "maze")
    assert result.returncode == 1
    assert result.stdout == ""
    assert (
        f"no episode with env 'maze' and steps 50 to 60 among the 7 in {run_dir} (3 files); "
        "the steps recorded are 0 to 10"
    ) in " ".join(result.stderr.split())
    env = run("replay", str(run_dir), "--env", "frozen_lake_v2")
    assert env.returncode == 1
    assert "their envs are frozen_lake, maze" in env.stderr


def test_step_on_episodes_without_training_says_they_have_none(tmp_path: Path) -> None:
    path = tmp_path / "eval.jsonl"
    result = run("eval", "frozen_lake", "--policy", "oracle", "-n", "3", "-o", str(path))
    assert result.returncode == 0, result.stderr
    replayed = run("replay", str(path), "--step", "0")
    assert replayed.returncode == 1
    message = " ".join(replayed.stderr.split())
    assert (
        f"no episode with step 0 among the 3 in {path}; none of them records a training step"
        in (message)
    )
    # an eval file alone keeps its headline as it was: no file, no step
    (alone,) = headlines(run("replay", str(path), "--index", "1").stdout)
    assert re.fullmatch(
        r"episode 1: frozen_lake seed 1, policy oracle: goal after \d+ turns?, total reward 1",
        alone,
    ), alone


@pytest.mark.parametrize("bad", ["5-6", "10:5", "-1", "ten", "1:2:3", ""])
def test_a_bad_step_is_a_usage_error_that_says_what_to_write(run_dir: Path, bad: str) -> None:
    result = run("replay", str(run_dir), "--step", bad)
    assert result.returncode == 2
    assert result.stdout == ""
    message = " ".join(result.stderr.split())
    assert "Invalid value for '--step'" in message
    assert re.search(r"FIRST:LAST with both included \(10:20\)|write 5:10", message), message


def test_files_and_directories_together_tell_their_episodes_apart(
    run_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "eval.jsonl"
    assert (
        run("eval", "frozen_lake", "--policy", "oracle", "-n", "2", "-o", str(path)).returncode == 0
    )
    result = run("replay", str(path), str(run_dir / WORKER), "--list")
    assert result.returncode == 0, result.stderr
    # streamed: the eval episodes' table has no step; the first training one starts a table
    headers = [line for line in result.stdout.splitlines() if line.startswith("┃")]
    assert [[cell.strip() for cell in header.strip("┃").split("┃")][1:3] for header in headers] == [
        ["env", "seed"], ["step", "process"],
    ]  # fmt: skip
    rows = listed(result.stdout)
    assert [(row[-2], row[0]) for row in rows] == [
        ("eval.jsonl", "0"), ("eval.jsonl", "1"), (WORKER, "0"),
    ]  # fmt: skip
    assert rows[2][1:3] == ["none", "node2 pid 7"]
    shown = headlines(run("replay", str(path), str(path)).stdout)
    assert [line.split(":")[0] for line in shown] == [
        "episode 0 (eval.jsonl)", "episode 1 (eval.jsonl)",
        "episode 0 (eval.jsonl)", "episode 1 (eval.jsonl)",
    ]  # fmt: skip


def test_a_cut_last_line_is_skipped_with_a_warning_and_the_rest_shown(tmp_path: Path) -> None:
    directory = tmp_path / "killed"
    directory.mkdir()
    whole = encoded_line(played(1, 3, 0))
    write(directory / RANK0, [played(0, 2, 0)], tail=whole[: len(whole) // 2])
    write(directory / RANK1, [played(0, 2, 1, pid=101)])
    result = run("replay", str(directory), "--list")
    assert result.returncode == 0, result.stderr
    assert [(row[8], row[0]) for row in listed(result.stdout)] == [(RANK0, "0"), (RANK1, "0")]
    assert f"skipped: {directory / RANK0}, line 2: cut off: the file ends inside" in result.stderr


def test_a_file_whose_only_line_is_cut_does_not_stop_its_directory(tmp_path: Path) -> None:
    """A process killed while writing its first episode leaves one cut line: replay, report
    and export of the directory go on with the other files."""
    directory = tmp_path / "killed-early"
    directory.mkdir()
    whole = encoded_line(played(0, 3, 0))
    write(directory / RANK0, [], tail=whole[: len(whole) // 2])
    write(directory / RANK1, [played(0, 2, 1, pid=101), played(1, 2, 1, pid=101)])
    result = run("replay", str(directory), "--list")
    assert result.returncode == 0, result.stderr
    assert [(row[8], row[0]) for row in listed(result.stdout)] == [(RANK1, "0"), (RANK1, "1")]
    assert f"skipped: {directory / RANK0}, line 1: cut off" in result.stderr
    report = run("report", str(directory), "-o", str(tmp_path / "report.html"))
    assert report.returncode == 0, report.stderr
    assert "2 episodes" in (tmp_path / "report.html").read_text(encoding="utf-8")
    export = run("export", str(directory), "-o", str(tmp_path / "sft.jsonl"))
    assert export.returncode == 0, export.stderr
    assert len((tmp_path / "sft.jsonl").read_text().splitlines()) == 2
    garbage = directory / "rank-garbage.jsonl"
    garbage.write_text("not json at all\n")  # a whole line that is no JSON still stops it
    result = run("replay", str(directory), "--list")
    assert result.returncode != 0 and "rank-garbage.jsonl, line 1: not valid JSON" in result.stderr


def test_what_training_wrote_is_shown_escaped(tmp_path: Path) -> None:
    directory = tmp_path / "hostile"
    directory.mkdir()
    evil = "\x1b]0;pwned\x07\x1b[2J\u202e[bold]x[/bold]"
    reply = f"{evil} \ud800 lone"
    records = [
        played(0, 1, None, env=f"frozen_lake{evil}", host=f"host{evil}", reply=reply),
        played(1, 1, 0, reply=reply),
    ]
    path = write(directory / "node\x1b[31m-1-20240101T000000Z.jsonl", records)
    for args in ([], ["--list"], ["--step", "9"], ["--env", evil]):
        result = run("replay", str(directory), *args)
        for text in (result.stdout, result.stderr):
            found = HIDDEN.search(text) or re.search(r"[\ud800-\udfff]", text)
            assert found is None, (args, text[max(0, found.start() - 60) :][:120])
        assert result.returncode == (0 if args in ([], ["--list"]) else 1), result.stderr
    shown = run("replay", str(path)).stdout
    assert r"host\x1b]0;pwned\x07\x1b[2J\u202e[bold]x[/bold] pid 100" in shown
    assert r"node\x1b[31m-1-20240101T000000Z.jsonl" in shown
    assert r"\x1b]0;pwned\x07\x1b[2J\u202e[bold]x[/bold] \ud800 lone" in shown
    # the record's own lone surrogate reads back as one, not as its six characters in the file
    assert json.loads(path.read_text().splitlines()[0])["turns"][0]["reply"] == reply


def test_a_narrow_terminal_wraps_the_list_and_cuts_nothing(run_dir: Path) -> None:
    result = run("replay", str(run_dir), "--list", env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    assert "…" not in result.stdout
    assert len([line for line in result.stdout.splitlines() if line.startswith("│ ")]) > 7
