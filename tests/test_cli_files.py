"""What `-o` makes of its path, for every command that has one (dataset, eval, report): file
modes, symlinks, FIFOs, /dev/stdout and `-`, signals mid-write, and text UTF-8 cannot hold.

Each runs the installed command in a new process, on real links, FIFOs and signals.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from cli_runner import SCRIPT, run
from openai_server import JSONHandler

Writer = Callable[[Path], "subprocess.CompletedProcess[str]"]


@contextmanager
def umask(mask: int) -> Iterator[None]:
    """Run the block (and the processes it starts) with `mask` as the umask."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("eval") / "t.jsonl"
    made = run("eval", "frozen_lake", "--policy", "random", "-n", "4", "-o", str(path))
    assert made.returncode == 0, made.stderr
    return path


@pytest.fixture(params=["dataset", "eval", "report", "export"])
def write(request: pytest.FixtureRequest, trajectories: Path) -> Writer:
    """Runs one command with `-o PATH`."""
    commands = {
        "dataset": ("dataset", "frozen_lake", "-n", "3"),
        # eval replaces a file that holds something only with --force (test_cli_eval)
        "eval": ("eval", "frozen_lake", "--policy", "oracle", "-n", "3", "--force"),
        "report": ("report", str(trajectories)),
        "export": ("export", str(trajectories)),
    }
    return lambda path: run(*commands[request.param], "-o", str(path))


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_output_file_gets_the_mode_the_umask_allows(
    write: Writer, tmp_path: Path, mask: int, expected: int
) -> None:
    out = tmp_path / "out"
    with umask(mask):
        result = write(out)
    assert result.returncode == 0, result.stderr
    assert mode(out) == expected
    assert list(tmp_path.iterdir()) == [out]


def test_overwriting_a_file_keeps_its_mode(write: Writer, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("old\n")
    out.chmod(0o640)
    with umask(0o077):
        result = write(out)
    assert result.returncode == 0, result.stderr
    assert mode(out) == 0o640
    assert out.read_text() != "old\n"


def test_a_symlink_is_written_through_and_stays_a_link(write: Writer, tmp_path: Path) -> None:
    target = tmp_path / "real" / "data"
    target.parent.mkdir()
    target.write_text("old\n")
    target.chmod(0o644)
    link = tmp_path / "link"
    link.symlink_to(target)
    result = write(link)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert target.read_text() != "old\n"
    assert mode(target) == 0o644
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["data", "link", "real"]


def test_a_dangling_symlink_gets_its_target_made(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "made.jsonl")
    result = run("dataset", "frozen_lake", "-n", "2", "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert len((tmp_path / "made.jsonl").read_text().splitlines()) == 2


def test_a_fifo_is_written_through_not_replaced(write: Writer, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as reader:  # blocks until the command opens it for writing
            received.append(reader.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    result = write(fifo)
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
    assert received and received[0].strip(), "nothing came through the FIFO"
    assert list(tmp_path.iterdir()) == [fifo]


def test_a_fifo_gets_nothing_but_an_end_of_file_when_a_row_is_bad(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as reader:
            received.append(reader.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    # seed 2 of size 64 with p 0.0001 has no solvable map: the third row is bad
    args = ("-n", "3", "--set", "size=64", "--set", "p=0.0001", "-o", str(fifo))
    result = run("dataset", "frozen_lake", *args)
    reader.join(timeout=60)
    assert result.returncode == 1
    assert received == [b""]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_dev_stdout_redirected_to_a_file_appends_like_the_redirect(tmp_path: Path) -> None:
    out = tmp_path / "log.jsonl"
    out.write_text("kept\n")
    with out.open("a") as stdout:
        result = subprocess.run(
            [str(SCRIPT), "dataset", "frozen_lake", "-n", "2", "-o", "/dev/stdout"],
            stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120, env=_environ(),
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "kept"
    assert [json.loads(line)["env_config"]["seed"] for line in lines[1:]] == [0, 1]
    assert list(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize("path", ["/dev/stdout", "/dev/fd/1", "-"])
def test_stdout_paths_write_to_stdout(path: str) -> None:
    before = os.lstat("/dev/stdout")
    result = run("dataset", "frozen_lake", "-n", "4", "-o", path)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["env_config"]["seed"] for row in rows] == [0, 1, 2, 3]
    assert os.lstat("/dev/stdout") == before


def test_dataset_to_a_pipe_closed_early_stops_quietly() -> None:
    command = f'"{SCRIPT}" dataset frozen_lake -n 20000 --no-build | head -n 1'
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        capture_output=True, text=True, timeout=300, env=_environ(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["env_config"]["seed"] == 0
    assert result.stderr == ""


def test_eval_dash_writes_trajectories_to_stdout_and_the_summary_to_stderr() -> None:
    result = run("eval", "frozen_lake", "--policy", "oracle", "-n", "3", "-o", "-")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [record["index"] for record in records] == [0, 1, 2]
    assert "success rate" in result.stderr
    assert "trajectories: stdout" in result.stderr
    both = run("eval", "frozen_lake", "--policy", "oracle", "-n", "3", "-o", "-", "--json")
    assert both.returncode == 2
    assert "both write to stdout" in both.stderr


def test_report_dash_writes_the_page_to_stdout(trajectories: Path, tmp_path: Path) -> None:
    result = run("report", str(trajectories), "-o", "-", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>")
    assert list(tmp_path.iterdir()) == []


# --- signals mid-write ----------------------------------------------------------------------


def _environ() -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    return {**environ, "NO_COLOR": "1", "COLUMNS": "200"}


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_mid_write_leaves_no_file_behind(
    tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    """Ten billion rows: streamed (no MemoryError), and stopped while the temp file grows."""
    out = tmp_path / "big.jsonl"
    process = subprocess.Popen(
        [str(SCRIPT), "dataset", "frozen_lake", "-n", "10000000000", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environ(),
    )
    try:
        for _ in range(600):  # up to a minute for the temporary file to hold some rows
            temps = list(tmp_path.glob(".swift-gym-*"))
            if (temps and temps[0].stat().st_size > 100_000) or process.poll() is not None:
                break
            time.sleep(0.1)
        assert process.poll() is None, process.communicate()[1]
        assert temps, "no temporary file appeared"
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr
    assert list(tmp_path.iterdir()) == []


def test_a_signal_mid_write_keeps_the_file_that_was_there(tmp_path: Path) -> None:
    out = tmp_path / "data.jsonl"
    out.write_text("previous\n")
    process = subprocess.Popen(
        [str(SCRIPT), "dataset", "frozen_lake", "-n", "10000000", "-o", str(out)],
        stderr=subprocess.PIPE,
        text=True,
        env=_environ(),
    )
    try:
        for _ in range(600):
            if any(p.stat().st_size > 0 for p in tmp_path.glob(".swift-gym-*")):
                break
            if process.poll() is not None:
                break
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert list(tmp_path.iterdir()) == [out]
    assert out.read_text() == "previous\n"


# --- text UTF-8 cannot hold -----------------------------------------------------------------


class _Listener(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False


@pytest.fixture
def surrogate_server() -> Iterator[str]:
    """An OpenAI-compatible server whose model replies with a lone surrogate in the text."""

    class Handler(JSONHandler):  # json.dumps (ensure_ascii) carries a surrogate as an escape
        def do_GET(self) -> None:
            self.reply(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            message = {"role": "assistant", "content": "\ud800 <action>down</action>"}
            self.reply(200, {"choices": [{"index": 0, "message": message}]})

    server = _Listener(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_eval_keeps_every_episode_when_the_model_writes_a_lone_surrogate(
    surrogate_server: str, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    proxies = [k for k in os.environ if "proxy" in k.lower()]
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", surrogate_server,
        "-n", "5", "--max-turns", "3", "-o", str(out),
        env={"NO_PROXY": "127.0.0.1"}, drop=[*proxies, "OPENAI_API_KEY"],
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_bytes().decode("utf-8").splitlines()]
    assert len(records) == 5
    assert records[0]["turns"][0]["reply"] == "\ud800 <action>down</action>"  # exactly
    # the next requests carried the surrogate back to the server: no episode failed on it
    assert all(record["error"] is None for record in records), records[0]["error"]
    assert any(record["num_turns"] > 1 for record in records)
    page = tmp_path / "t.html"
    report = run("report", str(out), "-o", str(page))
    assert report.returncode == 0, report.stderr
    page.read_bytes().decode("utf-8")  # valid UTF-8
