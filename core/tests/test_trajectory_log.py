"""The training trajectory file: whole lines, one file per process, and no failure ever escapes.

Bad places are real: a file where the directory should be, a path under a file, /dev/full, and
(where `unshare` can give the test a mount namespace of its own) a tiny tmpfs that fills up
and a read-only mount. A killed writer is a real process, SIGKILLed while it writes.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from swift_gym.episode.records import new_record, turn_record
from swift_gym.json_text import dumps
from swift_gym.ms_swift import trajectory_log
from swift_gym.ms_swift.trajectory_log import (
    TrajectoryFile,
    TrajectoryLog,
    episode_record,
)
from swift_gym.rows import read_jsonl

INFO = {"status": "ok", "action": "up", "metrics": {"success": 0.0, "valid_action": 1.0}}
GOAL = {"status": "goal", "action": "left", "metrics": {"success": 1.0, "valid_action": 1.0}}


REWARDS = [0.0, 1.0]


def episode(**changes: Any) -> dict[str, Any]:
    """What the scheduler keeps of a two-turn episode that reached the goal."""
    base = {
        "env": "frozen_lake",
        "env_config": {"seed": 7},
        "system_prompt": "You are playing FrozenLake.",
        "observation": "A new episode starts.",
        "reset_info": {"status": "reset"},
        "played": [("<action>up</action>", "You moved up."), ("<action>left</action>", "Goal.")],
        "step_infos": [INFO, GOAL],
        "error": None,
    }
    return {**base, **changes}


def no_turns(**changes: Any) -> dict[str, Any]:
    return episode(played=[], step_infos=[], **changes)


def lines_of(directory: Path) -> list[dict[str, Any]]:
    (path,) = directory.iterdir()
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def warnings(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger="swift_gym")
    return caplog


def test_a_record_has_the_eval_fields_and_where_in_training(tmp_path: Path) -> None:
    log = TrajectoryLog(str(tmp_path / "trajectories"))
    log.episode_finished(episode(), REWARDS, 1.0, True)
    log.episode_finished(no_turns(env_config={"seed": 8}), [], 0.0, False)
    first, second = lines_of(tmp_path / "trajectories")
    eval_fields = list(new_record(0, "frozen_lake", {}, "oracle"))
    assert list(first) == [*eval_fields, "training"]
    assert first["index"] == 0 and second["index"] == 1
    assert first["seed"] == 7 and first["policy"] == "training"
    assert (first["status"], first["success"], first["num_turns"]) == ("goal", True, 2)
    assert [turn["action"] for turn in first["turns"]] == ["up", "left"]
    assert [turn["valid_action"] for turn in first["turns"]] == [True, True]
    assert [turn["reward"] for turn in first["turns"]] == REWARDS
    assert [turn["done"] for turn in first["turns"]] == [False, True]
    assert first["turns"][1]["reply"] == "<action>left</action>"
    assert first["turns"][1]["observation"] == "Goal."
    assert (second["status"], second["success"]) == ("max_turns", False)
    training = first["training"]
    assert set(training) == {"step", "time", "sequence", "host", "pid", "rank"}
    assert training["step"] is None and training["rank"] is None  # no trainer, no RANK
    assert training["host"] == socket.gethostname() and training["pid"] == os.getpid()
    assert abs(training["time"] - time.time()) < 600
    assert [first["training"]["sequence"], second["training"]["sequence"]] == [0, 1]


def test_an_error_episode_is_recorded_as_eval_records_one(tmp_path: Path) -> None:
    TrajectoryLog(str(tmp_path)).episode_finished(
        no_turns(error="reset failed: TypeError: bad"), [], 0.0, False
    )
    (record,) = lines_of(tmp_path)
    assert (record["status"], record["error"], record["success"]) == (
        "error",
        "reset failed: TypeError: bad",
        False,
    )


def test_the_file_name_holds_host_and_pid_and_is_never_shared(tmp_path: Path) -> None:
    # two logs in one process: one file
    TrajectoryLog(str(tmp_path)).episode_finished(episode(), REWARDS, 1.0, True)
    TrajectoryLog(str(tmp_path)).episode_finished(episode(), REWARDS, 1.0, True)
    (path,) = tmp_path.iterdir()
    assert path.name.startswith(f"{socket.gethostname()}-{os.getpid()}-")
    assert path.suffix == ".jsonl"
    assert len(path.read_text().splitlines()) == 2


def test_the_step_and_rank_come_from_the_trainer(tmp_path: Path) -> None:
    class State:
        global_step = 0

    class Accelerator:
        process_index = 3

    class Trainer:
        state = State()
        accelerator = Accelerator()

    trainer = Trainer()
    log = TrajectoryLog(str(tmp_path), trainer)
    log.episode_finished(episode(), REWARDS, 1.0, True)
    trainer.state = State()
    trainer.state.global_step = 5  # the trainer replaces its state when training starts
    log.episode_finished(episode(), REWARDS, 1.0, True)
    steps = [(r["training"]["step"], r["training"]["rank"]) for r in lines_of(tmp_path)]
    assert steps == [(0, 3), (5, 3)]


def test_a_rollout_worker_takes_its_rank_from_ms_swift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWIFT_ROLLOUT_DP_RANK", "1")
    TrajectoryLog(str(tmp_path)).episode_finished(episode(), REWARDS, 1.0, True)
    assert lines_of(tmp_path)[0]["training"]["rank"] == 1


def test_the_log_is_on_only_when_the_variable_names_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(trajectory_log.VARIABLE, raising=False)
    assert TrajectoryLog.from_environment() is None
    monkeypatch.setenv(trajectory_log.VARIABLE, "  ")
    assert TrajectoryLog.from_environment() is None
    monkeypatch.setenv(trajectory_log.VARIABLE, str(tmp_path))
    log = TrajectoryLog.from_environment()
    assert log is not None and log.directory == str(tmp_path)


def test_replies_with_unicode_line_breaks_stay_one_line(tmp_path: Path) -> None:
    """JSON leaves U+2028, U+2029 and U+0085 unescaped, and `str.splitlines` breaks on them: a
    random model wrote one in CI. The file still holds one record per b"\\n", which is how
    `replay`, `report` and `export` read it."""
    odd = "left\u2028right\u2029up\x85down\x1c\x1d\x1e\x0b\x0c end"
    TrajectoryLog(str(tmp_path)).episode_finished(
        episode(played=[(odd, odd), ("<action>left</action>", "Goal.")]), REWARDS, 1.0, True
    )
    (path,) = tmp_path.iterdir()
    assert path.read_bytes().count(b"\n") == 1
    (line,) = read_jsonl(path)
    assert line.error is None
    assert line.row is not None
    (turn, _) = line.row["turns"]
    assert turn["reply"] == odd == turn["observation"]


def test_lone_surrogates_and_values_json_cannot_hold_are_written(tmp_path: Path) -> None:
    odd = {"status": "ok", "object": object(), 1: "int key", "nan": float("nan")}
    lone = episode(played=[("half a pair: \ud800", "obs \udfff")], step_infos=[odd])
    TrajectoryLog(str(tmp_path)).episode_finished(lone, [0.0], 0.0, False)
    (path,) = tmp_path.iterdir()
    (record,) = (json.loads(line) for line in path.read_bytes().decode("utf-8").splitlines())
    (turn,) = record["turns"]
    assert turn["reply"] == "half a pair: \ud800" and turn["observation"] == "obs \udfff"
    assert turn["info"]["object"].startswith("<object object")
    assert turn["info"]["1"] == "int key"


def test_a_directory_that_is_a_file_is_one_warning(
    tmp_path: Path, warnings: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("mine\n")
    log = TrajectoryLog(str(blocker))
    for _ in range(5):
        log.episode_finished(episode(), REWARDS, 1.0, True)
    assert len(warnings.messages) == 1 and str(blocker) in warnings.messages[0]
    assert "Not a directory; training goes on without them" in warnings.messages[0]
    assert blocker.read_text() == "mine\n"


def test_a_path_under_a_file_is_one_warning(
    tmp_path: Path, warnings: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "file").write_text("")
    log = TrajectoryLog(str(tmp_path / "file" / "trajectories"))
    for _ in range(5):
        log.episode_finished(episode(), REWARDS, 1.0, True)
    assert len(warnings.messages) == 1 and "Not a directory" in warnings.messages[0]


def test_a_full_device_is_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warnings: pytest.LogCaptureFixture
) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    opened = []

    def open_dev_full(directory: str) -> tuple[int, str]:
        opened.append(directory)
        return os.open("/dev/full", os.O_WRONLY | os.O_APPEND), "/dev/full"

    monkeypatch.setattr(trajectory_log, "open_exclusive", open_dev_full)
    log = TrajectoryLog(str(tmp_path / "full"))
    for _ in range(5):
        log.episode_finished(episode(), REWARDS, 1.0, True)
    assert opened == [str(tmp_path / "full")]
    assert len(warnings.messages) == 1 and "No space left on device" in warnings.messages[0]


def test_a_failure_building_a_record_is_one_warning(
    tmp_path: Path, warnings: pytest.LogCaptureFixture
) -> None:
    file = TrajectoryFile(str(tmp_path))

    def broken(sequence: int) -> dict[str, Any]:
        raise RecursionError("too deep")

    file.append(broken)
    file.append(lambda sequence: {"sequence": sequence})
    assert len(warnings.messages) == 1 and "too deep" in warnings.messages[0]
    assert file.failed


def test_episode_record_keeps_the_rows_own_env_config(tmp_path: Path) -> None:
    training = {"step": 1, "time": 0.0, "sequence": 4, "host": "h", "pid": 1, "rank": 0}
    record = episode_record(episode(env_config=["not", "a", "dict"]), [], 1.0, True, training)
    assert record["env_config"] == ["not", "a", "dict"] and record["seed"] is None
    assert record["index"] == 4


NAMESPACE_SCRIPT = """
import json, logging, os, sys
from pathlib import Path
from swift_gym.ms_swift.trajectory_log import TrajectoryLog
logging.basicConfig(level=logging.WARNING, format="WARNING %(message)s")
directory = Path(sys.argv[1]) / "trajectories"
reply = "x" * 3000
episode = {"env": "frozen_lake", "env_config": {"seed": 1}, "played": [(reply, "obs")],
           "step_infos": [{"status": "ok"}], "error": None}
log = TrajectoryLog(str(directory))
for _ in range(40):
    log.episode_finished(episode, [0.0], 0.0, True)
files = list(directory.iterdir()) if directory.is_dir() else []
lines = [line for path in files for line in path.read_bytes().split(b"\\n") if line]
print(json.dumps({"files": len(files), "parsed": sum(1 for l in lines if json.loads(l)),
                  "ends_with_newline": all(p.read_bytes().endswith(b"\\n") for p in files)}))
"""


def in_own_mount_namespace(tmp_path: Path, mount: str) -> subprocess.CompletedProcess[str]:
    """Run NAMESPACE_SCRIPT after `mount` (shell) in a mount namespace of its own."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace here: {probe.stderr.decode(errors='replace')[:200]}")
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(NAMESPACE_SCRIPT))
    root = tmp_path / "mnt"
    root.mkdir()
    shell = f"{mount.format(root=root)} && exec {sys.executable} {script} {root}"
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", shell], capture_output=True, text=True, timeout=120
    )


def test_a_disk_that_fills_up_keeps_whole_lines_and_warns_once(tmp_path: Path) -> None:
    # 64 KiB hold about 20 of the 40 records of 3 KB: one is cut short by the disk
    result = in_own_mount_namespace(tmp_path, "mount -t tmpfs -o size=64k tmpfs {root}")
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["files"] == 1 and seen["ends_with_newline"]
    assert 5 < seen["parsed"] < 40  # json.loads of every line passed
    assert result.stderr.count("WARNING") == 1, result.stderr
    assert "No space left on device" in result.stderr


def test_a_read_only_directory_is_one_warning(tmp_path: Path) -> None:
    # root ignores permission bits; a read-only mount stops even root
    mount = "mount -t tmpfs tmpfs {root} && mkdir {root}/trajectories && mount -o remount,ro {root}"
    result = in_own_mount_namespace(tmp_path, mount)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["files"] == 0
    assert result.stderr.count("WARNING") == 1 and "Read-only file system" in result.stderr


WRITER_SCRIPT = """
import sys
from swift_gym.ms_swift.trajectory_log import TrajectoryLog
played = [("r" * 300 + "\\u2603", "o" * 200)] * 5  # about 3.5 KB, a FrozenLake episode's size
episode = {"env": "frozen_lake", "env_config": {}, "played": played,
           "step_infos": [{"status": "ok"}] * 5, "error": None}
log = TrajectoryLog(sys.argv[1])
while True:
    log.episode_finished(episode, [0.0] * 5, 0.0, False)
"""


def test_a_killed_writer_leaves_only_whole_lines(tmp_path: Path) -> None:
    # Linux copies a write into the file page by page and a SIGKILL can stop it between pages,
    # so a record of hundreds of KB can be cut (replay skips it with a warning); records of a
    # few KB, as FrozenLake's, were never seen cut in 150 kills.
    directory = tmp_path / "trajectories"
    writer = subprocess.Popen([sys.executable, "-c", WRITER_SCRIPT, str(directory)])
    try:
        for _ in range(600):  # until some records are out, at most a minute
            files = list(directory.glob("*.jsonl"))
            if files and files[0].stat().st_size > 500_000:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the writer wrote nothing")
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=60)
    assert writer.returncode == -signal.SIGKILL
    (path,) = directory.glob("*.jsonl")
    data = path.read_bytes()
    assert data.endswith(b"\n")
    records = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    assert len(records) > 5
    assert [r["index"] for r in records] == list(range(len(records)))


FORK_SCRIPT = """
import os, sys
from swift_gym.ms_swift.trajectory_log import TrajectoryLog
episode = {"env": "frozen_lake", "env_config": {}, "played": [], "step_infos": [], "error": None}
log = TrajectoryLog(sys.argv[1])
log.episode_finished(episode, [], 0.0, False)
child = os.fork()
log.episode_finished(episode, [], 0.0, False)
if child == 0:
    os._exit(0)
os.waitpid(child, 0)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_writes_a_file_of_its_own(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", FORK_SCRIPT, str(tmp_path)], capture_output=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    files = {path: path.read_text().splitlines() for path in tmp_path.iterdir()}
    assert len(files) == 2
    counts = sorted(len(lines) for lines in files.values())
    assert counts == [1, 2]  # the child: its one record, numbered from 0 in its own file
    pids = {json.loads(line)["training"]["pid"] for lines in files.values() for line in lines}
    assert len(pids) == 2
    for lines in files.values():
        assert [json.loads(line)["index"] for line in lines] == list(range(len(lines)))


def test_a_line_reads_back_as_json_text_writes_it_with_or_without_msgspec() -> None:
    training = {"step": 1, "time": 0.5, "sequence": 0, "host": "h", "pid": 1, "rank": None}
    plain = episode_record(episode(), [], 1.0, True, training)
    odd = episode_record(episode(system_prompt="lone \udc80"), [], 1.0, True, training)
    for record in (plain, odd):
        line = trajectory_log.encoded_line(record)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert json.loads(line) == json.loads(dumps(record))
    assert json.loads(trajectory_log.encoded_line(odd))["system_prompt"] == "lone \udc80"


def encoded_turns(ep: dict[str, Any], rewards: list[float], done: bool) -> dict[str, Any]:
    """`ep` as the scheduler keeps it: each turn encoded as it ended, no `played`."""
    played = ep.pop("played")
    last = len(played)
    steps = zip(played, rewards, ep["step_infos"], strict=True)
    ep["turns"] = [
        trajectory_log.encoded_turn(turn_record(n, reply, obs, reward, done and n == last, info))
        for n, ((reply, obs), reward, info) in enumerate(steps, 1)
    ]
    return ep


@pytest.mark.parametrize(
    "changes",
    [{}, {"played": [("lone \ud800", "obs")], "step_infos": [INFO]}, {"system_prompt": "\udc80"}],
)
def test_turns_encoded_as_they_end_write_the_same_line(tmp_path: Path, changes: Any) -> None:
    # the scheduler encodes each turn when it ends; the line must be the one built at the end
    rewards = REWARDS[: len(episode(**changes)["played"])]
    TrajectoryLog(str(tmp_path / "built")).episode_finished(episode(**changes), rewards, 1.0, True)
    kept = encoded_turns(episode(**changes), rewards, True)
    TrajectoryLog(str(tmp_path / "kept")).episode_finished(kept, rewards, 1.0, True)
    (built,), (encoded,) = lines_of(tmp_path / "built"), lines_of(tmp_path / "kept")
    for record in (built, encoded):
        record["training"].pop("time")
    assert encoded == built
    assert encoded["num_turns"] == len(rewards) and encoded["turns"][-1]["done"]


def test_a_total_reward_beyond_every_float_is_an_error_not_a_silent_null(tmp_path: Path) -> None:
    """Two steps of 1e308: ms-swift's sum is inf, which JSON cannot hold (msgspec writes null,
    which reads as 0): the record says the total overflowed instead."""
    TrajectoryLog(str(tmp_path)).episode_finished(episode(), [1e308, 1e308], float("inf"), True)
    (record,) = lines_of(tmp_path)
    assert record["status"] == "error" and record["success"] is False
    assert record["error"] == (
        "the total reward overflowed: the step rewards sum beyond the largest float (1.798e+308)"
    )
    assert record["total_reward"] is None
    assert [turn["reward"] for turn in record["turns"]] == [1e308, 1e308]
