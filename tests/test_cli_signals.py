"""Ctrl-C, SIGTERM and closed pipes, sent to the installed `swift-gym` in real processes.

`eval` must stop at the first SIGINT (no new episodes; those in flight get a moment, then are
cancelled), keep -o a complete prefix of whole lines in index order, print the summary of what
it played and exit 130 (SIGTERM: 143); a second Ctrl-C must not print a traceback. Every
command ends quietly, with exit code 0, when the reader of its stdout goes away.

Races here failed CI runs before; the file passes 20 runs in a row beside CPU burners on both
cores (tests/under_load.py; docs/development.md, "Races and hangs").
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_runner import SCRIPT
from test_eval_servers import WAIT, Server, environ, start_server

BIG = "2000000"
"""Episodes or rows no test waits for: a command that ignores the signal runs for many minutes,
and `communicate(timeout=WAIT)` reports it hung."""


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(SCRIPT), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ(),
    )


def wait_until(condition, process: subprocess.Popen[str]) -> None:  # type: ignore[no-untyped-def]
    """Poll `condition` (bounded) while `process` runs."""
    for _ in range(WAIT * 20):
        if condition():
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError("the condition never held")


def finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        return process.communicate(timeout=WAIT)
    finally:
        process.kill()


def has_lines(path: Path, count: int = 1):  # type: ignore[no-untyped-def]
    return lambda: path.exists() and path.read_bytes().count(b"\n") >= count


def assert_complete_prefix(path: Path) -> int:
    """Whole JSON lines, indices 0, 1, 2... with no gap; their number."""
    text = path.read_text()
    assert text == "" or text.endswith("\n")
    indices = [json.loads(line)["index"] for line in text.splitlines()]
    assert indices == list(range(len(indices)))
    return len(indices)


@pytest.mark.parametrize("policy", ["random", "oracle"])
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_eval_keeps_the_prefix_and_prints_the_summary(
    policy: str, signum: int, code: int, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    process = spawn("eval", "frozen_lake", "--policy", policy, "-n", BIG, "-o", str(out))
    wait_until(has_lines(out, 50), process)
    process.send_signal(signum)
    stdout, stderr = finish(process)
    assert process.returncode == code, stderr
    kept = assert_complete_prefix(out)
    assert re.search(rf"success rate +[0-9.]+ +\d+ of {kept};", stdout), stdout
    assert re.search(rf"not played +{int(BIG) - kept} ", stdout)
    name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
    assert f"stopped early: interrupted by {name}" in stdout
    assert "Traceback" not in stderr and "Aborted" not in stderr


def test_eval_json_after_ctrl_c_counts_what_was_played(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    process = spawn(
        "eval", "frozen_lake", "--policy", "random", "-n", BIG, "-o", str(out), "--json"
    )
    wait_until(has_lines(out, 50), process)
    process.send_signal(signal.SIGINT)
    stdout, stderr = finish(process)
    assert process.returncode == 130, stderr
    summary = json.loads(stdout)
    kept = assert_complete_prefix(out)
    assert summary["episodes"] == kept
    assert summary["not_played"] == int(BIG) - kept
    assert summary["stopped"] == "interrupted by Ctrl-C"


def test_ctrl_c_cancels_requests_in_flight_and_a_second_one_prints_no_traceback(
    tmp_path: Path,
) -> None:
    server: Server = start_server(tmp_path / "log.jsonl", "--answer", "stall")
    try:
        out = tmp_path / "t.jsonl"
        process = spawn(
            "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
            "-n", "8", "--concurrency", "2", "-o", str(out),
        )  # fmt: skip
        wait_until(lambda: len(server.requests()) >= 2, process)
        process.send_signal(signal.SIGINT)
        process.send_signal(signal.SIGINT)
        stdout, stderr = finish(process)
        assert process.returncode == 130, stderr
        assert "Traceback" not in stderr and "Aborted" not in stderr
        assert assert_complete_prefix(out) == 0  # nothing ended: nothing kept
        assert "not played         8" in stdout
        assert "0 of 0" in stdout and "nan" not in stdout
        # the stalled requests were given up: the server saw their clients hang up
        wait_until(lambda: server.events()[-1]["active"] == 0, server.process)
    finally:
        server.stop()


def test_one_ctrl_c_ends_stalled_requests_after_a_grace(tmp_path: Path) -> None:
    server: Server = start_server(tmp_path / "log.jsonl", "--answer", "stall")
    try:
        process = spawn(
            "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
            "-n", "4", "--concurrency", "4", "--json",
        )  # fmt: skip
        wait_until(lambda: len(server.requests()) >= 4, process)
        process.send_signal(signal.SIGINT)
        stdout, stderr = finish(process)
        assert process.returncode == 130, stderr
        assert json.loads(stdout)["not_played"] == 4
        assert len(server.requests()) == 4  # nothing new was sent after the signal
    finally:
        server.stop()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_any_command_ends_quietly_on_a_signal(signum: int, code: int, tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    process = spawn("dataset", "frozen_lake", "-n", "300000", "-o", str(out))
    wait_until(lambda: any(tmp_path.iterdir()), process)  # its temporary file exists
    process.send_signal(signum)
    _, stderr = finish(process)
    assert process.returncode == code
    said = stderr.strip()  # no traceback, no "Aborted!": at most what dataset says it did
    assert said in ("", f"interrupted: wrote nothing to {out}"), said


SIGNAL_IN_A_FINALIZER = """
import os, signal, sys, time
from swift_gym.cli import signals

signals.install()


class SignalledWhileCollected:
    def __del__(self):
        os.kill(os.getpid(), int(sys.argv[1]))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # Python code: the handler runs, and raises, here
            pass


SignalledWhileCollected()  # collected at once, so its __del__ runs now
for _ in range(3000):
    time.sleep(0.01)
print("the signal was lost")
"""


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, -signal.SIGINT), (signal.SIGTERM, 143)]
)
def test_a_signal_whose_exception_python_dropped_is_sent_again(signum: int, code: int) -> None:
    """A real signal that lands in a `__del__`: Python can only drop its handler's exception."""
    process = subprocess.run(
        [sys.executable, "-c", SIGNAL_IN_A_FINALIZER, str(int(signum))],
        capture_output=True,
        text=True,
        env=environ(),
        timeout=WAIT,
    )
    assert "lost" not in process.stdout
    assert process.returncode == code, process.stderr
    if signum == signal.SIGINT:  # uncaught: Python's traceback, then it ends by SIGINT itself
        assert process.stderr.rstrip().endswith("KeyboardInterrupt"), process.stderr
    else:
        assert process.stderr == ""


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trajectory file whose replay is far more than a pipe's buffer."""
    path = tmp_path_factory.mktemp("replay") / "t.jsonl"
    made = subprocess.run(
        [str(SCRIPT), "eval", "frozen_lake", "--policy", "random", "-n", "300", "-o", str(path)],
        capture_output=True,
        env=environ(),
        timeout=WAIT,
    )
    assert made.returncode == 0, made.stderr
    return path


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("list", "--json"),
        ("info", "frozen_lake"),
        ("--help",),
        ("eval", "--help"),
        ("eval", "frozen_lake", "--policy", "random", "-n", "20", "--json"),
        ("replay", "TRAJECTORIES"),
    ],
)
def test_a_closed_pipe_ends_any_command_quietly_with_0(
    args: tuple[str, ...], trajectories: Path
) -> None:
    args = tuple(str(trajectories) if arg == "TRAJECTORIES" else arg for arg in args)
    process = spawn(*args)
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before the command writes
    assert process.stderr is not None
    stderr = process.stderr.read()
    process.wait(WAIT)
    assert process.returncode == 0, stderr
    assert stderr == ""


def test_replay_into_head_exits_0(trajectories: Path) -> None:
    process = spawn("replay", str(trajectories))
    assert process.stdout is not None and process.stderr is not None
    first = [process.stdout.readline() for _ in range(2)]  # a rule, then the headline
    assert first[1].startswith("episode 0"), first
    process.stdout.close()  # as `head -1` does
    stderr = process.stderr.read()
    process.wait(WAIT)
    assert process.returncode == 0, stderr
    assert stderr == ""


def test_after_ctrl_c_eval_prints_the_command_that_plays_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    total = 200_000
    process = spawn(
        "eval", "frozen_lake", "--policy", "random", "-n", str(total), "--seed-start", "7",
        "--set", "size=5", "--max-turns", "6", "-o", str(out),
    )  # fmt: skip
    wait_until(has_lines(out, 50), process)
    process.send_signal(signal.SIGINT)
    _, stderr = finish(process)
    assert process.returncode == 130, stderr
    kept = assert_complete_prefix(out)
    rest = tmp_path / f"t.from-{7 + kept}.jsonl"
    hint = re.search(r"^to play the other (\d+) episodes: swift-gym (.+)$", stderr, re.M)
    assert hint, stderr
    assert int(hint[1]) == total - kept
    args = hint[2].split()
    assert args == [
        "eval", "frozen_lake", "--policy", "random", "--set", "size=5", "--max-turns", "6",
        "-n", str(total - kept), "--seed-start", str(7 + kept), "-o", str(rest),
    ]  # fmt: skip
    assert f"then read both: swift-gym replay {out} {rest}" in stderr
    # the command it prints plays the next seeds, with the same settings
    args[args.index("-n") + 1] = "3"
    process = spawn(*args)
    _, stderr = finish(process)
    assert process.returncode == 0, stderr
    played = [json.loads(line) for line in rest.read_text().splitlines()]
    assert [r["seed"] for r in played] == [7 + kept, 8 + kept, 9 + kept]
    assert {r["env_config"]["size"] for r in played} == {5}
    last = json.loads(out.read_text().splitlines()[-1])
    assert last["seed"] == 6 + kept


def test_after_ctrl_c_a_dataset_run_says_which_rows_were_not_played(tmp_path: Path) -> None:
    dataset = tmp_path / "rows.jsonl"
    rows = 50_000
    dataset.write_text("".join(f'{{"env_config": {{"seed": {i}}}}}\n' for i in range(rows)))
    out = tmp_path / "t.jsonl"
    process = spawn(
        "eval", "frozen_lake", "--dataset", str(dataset), "--policy", "random", "-o", str(out)
    )
    wait_until(has_lines(out, 50), process)
    process.send_signal(signal.SIGINT)
    _, stderr = finish(process)
    assert process.returncode == 130, stderr
    kept = assert_complete_prefix(out)
    assert (
        f"not played: the {rows - kept} rows of {dataset} after its first {kept}; eval has no "
        "option to skip rows: give it a dataset of those rows to play them"
    ) in " ".join(stderr.split())
    assert "to play the other" not in stderr
