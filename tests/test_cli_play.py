"""`swift-gym play` in a real pseudo-terminal: line editing, history, Ctrl-C and Ctrl-D.

The command runs in a new process whose controlling terminal is a pty, exactly as in a terminal
window: the keys written to the pty's master side are what a person types (arrow keys as their
escape sequences, Ctrl-C as the byte the terminal turns into SIGINT). What the env made of each
reply is read back from the observations it printed. Seed 0 of FrozenLake is
G F F F / F F S F / F F H F / F F F F: the start is at row 1, col 2.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import SCRIPT, run

pty = pytest.importorskip("pty")

UP, LEFT = "\x1b[A", "\x1b[D"
WAIT = float(os.environ.get("PLAY_WAIT", 60))
"""Seconds before a test gives up waiting for output (a hang guard, never a timing check)."""


class Terminal:
    """`swift-gym ARGS` with a pty as its terminal; `expect` reads until a pattern shows."""

    def __init__(self, *args: str):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
        env.pop("FORCE_COLOR", None)
        env.update({"NO_COLOR": "1", "COLUMNS": "120", "TERM": "xterm", "INPUTRC": "/dev/null"})
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: becomes swift-gym, with the pty as its terminal
            try:
                os.execve(str(SCRIPT), [str(SCRIPT), *args], env)
            finally:
                os._exit(127)
        self.output = ""
        self.status: int | None = None

    def _read(self, deadline: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            data = b""
        if not data:
            return False
        self.output += data.decode("utf-8", errors="replace")
        return True

    def expect(self, pattern: str) -> re.Match[str]:
        """Wait for `pattern` (a regex) in the output after what earlier calls consumed."""
        deadline = time.monotonic() + WAIT
        start = getattr(self, "_seen", 0)
        while True:
            match = re.compile(pattern).search(self.output, start)
            if match:
                self._seen = match.end()
                return match
            if not self._read(deadline):
                raise AssertionError(f"{pattern!r} never came; output:\n{self.output}")

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def interrupt(self) -> None:
        """Ctrl-C once swift-gym waits for a key. A SIGINT that lands while CPython's readline
        loop is busy (drawing the prompt, echoing a key) is only seen at the next key, a window
        of microseconds no typist hits but a test reacting to output can; so wait, on Linux,
        until the process sleeps (in readline's select) before pressing it."""
        stat = Path(f"/proc/{self.pid}/stat")
        for _ in range(1000):
            if not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "S":
                break
            time.sleep(0.01)
        self.send("\x03")

    def wait(self) -> int:
        """The exit code, after reading the rest of the output."""
        deadline = time.monotonic() + WAIT
        while self._read(deadline):
            pass
        for _ in range(int(WAIT * 10)):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
            time.sleep(0.1)
        raise AssertionError(f"swift-gym play never ended; output:\n{self.output}")

    def close(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except ProcessLookupError:
                pass
        os.close(self.fd)


@pytest.fixture()
def terminal() -> Iterator[type[Terminal]]:
    made: list[Terminal] = []

    def make(*args: str) -> Terminal:
        made.append(Terminal(*args))
        return made[-1]

    yield make  # type: ignore[misc]
    for term in made:
        term.close()


def test_arrow_keys_edit_the_line_and_recall_earlier_replies(terminal) -> None:
    term = terminal("play", "frozen_lake", "--seed", "0")
    term.expect(r"You are at row 1, col 2\.")
    term.expect(r"reply> ")
    # Up with no history yet does nothing; Left moves the cursor back into the line.
    term.send(UP + "<action>lef</action>" + LEFT * 9 + "t\r")
    term.expect(r"You moved left\.")
    term.expect(r"You are at row 1, col 1\.")
    term.expect(r"reply> ")
    term.send(UP + "\r")  # the previous reply again: left
    term.expect(r"You moved left\.")
    term.expect(r"You are at row 1, col 0\.")
    term.expect(r"reply> ")
    term.send("<action>do")  # half a line, then Ctrl-C: nothing is sent, the session ends at once
    term.expect(r"<action>do")
    term.interrupt()
    summary = term.expect(
        r"interrupted before the episode ended: (\d+) turns?, total reward ([\d.]+)"
    )
    assert summary.groups() == ("2", "0")
    assert term.wait() == 130
    assert "last status ok" in term.output
    assert "No valid action" not in term.output  # no arrow key and no ^C was sent as a reply
    assert "Traceback" not in term.output
    assert "Aborted" not in term.output


def test_ctrl_c_at_the_first_prompt_ends_with_a_summary(terminal) -> None:
    term = terminal("play", "frozen_lake", "--seed", "0")
    term.expect(r"reply> ")
    term.send("<action>do")  # half a line, then Ctrl-C: nothing is sent
    term.expect(r"<action>do")
    term.interrupt()
    term.expect(r"interrupted before the episode ended: 0 turns, total reward 0")
    assert term.wait() == 130
    assert "Traceback" not in term.output


def test_ctrl_d_ends_with_a_summary_and_exit_0(terminal) -> None:
    term = terminal("play", "frozen_lake", "--seed", "0")
    term.expect(r"reply> ")
    term.send("<action>up</action>\r")
    term.expect(r"You moved up\.")
    term.expect(r"reply> ")
    term.send("\x04")
    term.expect(r"stopped before the episode ended \(end of input\): 1 turn, total reward 0")
    assert term.wait() == 0


def test_the_episode_ending_ends_the_session(terminal) -> None:
    term = terminal("play", "frozen_lake", "--seed", "0")
    for move in ("up", "left", "left"):
        term.expect(r"reply> ")
        term.send(f"<action>{move}</action>\r")
    term.expect(r"episode over: status goal; 3 turns, total reward 1")
    assert term.wait() == 0


def test_ctrl_c_with_piped_input_ends_with_a_summary() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    env.update({"NO_COLOR": "1", "COLUMNS": "200"})
    process = subprocess.Popen(
        [str(SCRIPT), "play", "frozen_lake", "--seed", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("<action>up</action>\n")
        process.stdin.flush()
        seen = ""
        for _ in range(1000):  # until the answer to the first reply shows
            line = process.stdout.readline()
            assert line, f"play ended early: {seen}"
            seen += line
            if line.startswith("You are at row 0, col 2."):
                break
        process.send_signal(signal.SIGINT)  # play now waits on the open pipe
        out, err = process.communicate(timeout=WAIT)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, err
    assert "interrupted before the episode ended: 1 turn, total reward 0, last status ok" in out
    assert "Traceback" not in err


def test_piped_input_plays_as_before_with_a_readable_info_line() -> None:
    result = run("play", "frozen_lake", "--seed", "0", stdin="<action>up</action>\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "reward 0 · done no · action up · status ok" in out
    assert re.search(
        r"^  seed=0  actual_action=up  position=\[0,2\]  step=1 .*metrics=\{", out, re.M
    )
    assert '{"status"' not in out  # no raw JSON
    assert out.rstrip().endswith(
        "stopped before the episode ended (end of input): 1 turn, total reward 0, last status ok"
    )


def test_play_never_imports_readline_for_piped_input() -> None:
    code = (
        "import sys, io; sys.stdin = io.StringIO(''); from swift_gym.cli.play import read_replies; "
        "list(read_replies()); print('readline' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr


# --- an env package that misbehaves ------------------------------------------------------------

HOSTILE_ENV = '''
import asyncio, sys

import swift_gym


class HostileEnv(swift_gym.Env):
    """Texts with escape sequences; a step that never ends ("wait"), one that raises ("boom")."""

    async def reset(self, request=None):
        return "start \\x1b[2J here", {}, "prompt \\x1b]0;pwned\\x07 [bold]x[/bold]"

    async def step(self, messages):
        reply = messages[-1]["content"]
        if reply == "wait":
            print("stepping", file=sys.stderr, flush=True)
            await asyncio.sleep(3600)
        if reply == "boom":
            raise RuntimeError("kaboom \\x1b[2J")
        return f"got {reply}", 0.5, False, {"status": "ok\\x07", "x": [1, "\\x1b"]}

    async def close(self):
        print("closed", file=sys.stderr, flush=True)
'''


@pytest.fixture(scope="module")
def hostile_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A real distribution on PYTHONPATH (its dist-info is what importlib.metadata reads)."""
    site = tmp_path_factory.mktemp("site")
    (site / "hostile_env_module.py").write_text(HOSTILE_ENV)
    info = site / "swift_gym_test_hostile-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: swift-gym-test-hostile\nVersion: 0.1.0\n"
        "Summary: An env whose texts and steps misbehave.\n"
    )
    (info / "entry_points.txt").write_text(
        "[swift_gym.envs]\nhostile = hostile_env_module:HostileEnv\n"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    environ.update({"NO_COLOR": "1", "COLUMNS": "200", "PYTHONPATH": str(site)})
    return environ


def test_env_texts_are_escaped_and_a_raising_step_ends_with_a_summary(
    hostile_env: dict[str, str],
) -> None:
    result = subprocess.run(
        [str(SCRIPT), "play", "hostile"],
        input="fine\nboom\nnever sent\n",
        capture_output=True,
        text=True,
        env=hostile_env,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "\x1b" not in out and "\x07" not in out
    assert r"prompt \x1b]0;pwned\x07 [bold]x[/bold]" in out
    assert r"start \x1b[2J here" in out
    assert r"reward 0.5 · done no · status ok\x07" in out
    assert r'x=[1,"\x1b"]' in out
    assert r"error: the env failed: RuntimeError: kaboom \x1b[2J" in out
    assert r"stopped by an env error: 1 turn, total reward 0.5, last status ok\x07" in out
    assert "never sent" not in out
    assert "closed" in result.stderr  # the env was closed
    assert "Traceback" not in result.stderr


def test_ctrl_c_during_a_step_ends_with_a_summary(hostile_env: dict[str, str]) -> None:
    process = subprocess.Popen(
        [str(SCRIPT), "play", "hostile"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=hostile_env,
        text=True,
    )
    try:
        assert process.stdin is not None and process.stderr is not None
        process.stdin.write("one\nwait\n")
        process.stdin.flush()
        line = process.stderr.readline()  # the env is inside step() now, for an hour
        assert line == "stepping\n", line
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, err
    assert (
        r"interrupted before the episode ended: 1 turn, total reward 0.5, last status ok\x07" in out
    )
    assert "closed" in err
    assert "Traceback" not in err and "was destroyed but it is pending" not in err


def test_play_without_seed_prints_the_seed_it_drew_and_that_seed_replays_it() -> None:
    first = run("play", "frozen_lake", stdin="<action>up</action>\n")
    assert first.returncode == 0, first.stderr
    drawn = re.search(r"^seed (\d+) \(drawn: play this episode again with --seed \1\)$",
                      first.stdout, re.M)  # fmt: skip
    assert drawn, first.stdout
    again = run("play", "frozen_lake", "--seed", drawn[1], stdin="<action>up</action>\n")
    assert again.returncode == 0, again.stderr
    assert "drawn" not in again.stdout
    assert again.stdout == first.stdout[drawn.end() + 1 :]
