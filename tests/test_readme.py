"""The commands the README and the docs show work as written: the README's quick start's first
line in a copy of the checkout (a venv, torch, ms-swift, swift-gym and FrozenLake installed as a
user installs them, then quickstart.sh's training, with `--quick` added: every stage, a few steps
each), then, in the venv that line made, the README's tour (whose output must still be what the
README shows), every line of the "A first look" block of docs/getting-started.md and every line
of the block of docs/cli.md, in order. Run by tox's `quickstart` env, the only one that installs
from nothing as the README says (about 5 minutes here, most of it pip).

Only what a test cannot do alone is changed: `--quick`, the OpenAI line points at a scripted
server on 127.0.0.1 instead of port 8000, and `~` is a temporary home. An example that fails (as
`--mix frozen_lake:3,maze:1` once did, with no `maze` env anywhere) fails here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

# pytest-timeout: the quick start's venv, its pip installs of torch and ms-swift as a user runs
# them and a short training: about 5 minutes here, up to 15 on busy cores
pytestmark = pytest.mark.timeout(1800)

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
GETTING_STARTED = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
CLI_PAGE = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
DEFAULT_URL = "http://127.0.0.1:8000/v1"
TOUR_COLUMNS = "100"  # the terminal width the README's tour output was taken at


def code_block(after_heading: str, text: str = README, language: str = "bash") -> list[str]:
    """The non-empty lines of the first ```bash (or `language`) block under `after_heading`."""
    assert after_heading in text, f"no {after_heading!r}"
    section = text.split(after_heading, 1)[1]
    block = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert block, f"no {language} block under {after_heading!r}"
    return [line for line in block.group(1).splitlines() if line.strip()]


def tour() -> list[tuple[str, list[str]]]:
    """The README's tour: each `$ command` with the output lines shown under it."""
    steps: list[tuple[str, list[str]]] = []
    for line in code_block("## A short tour", language="console"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def checkout_copy(target: Path) -> Path:
    """The files a clone would have (tracked and new, not ignored), copied to `target`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (entry.decode() for entry in listed)):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def clean_env(home: Path, path_first: Path | None = None) -> dict[str, str]:
    """The caller's environment without its venv, swift-gym settings or proxies."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SWIFT_GYM_", "VIRTUAL_ENV", "PYTHON")) and "proxy" not in k.lower()
    }
    paths = [p for p in environ.get("PATH", "").split(os.pathsep) if "/.tox/" not in p]
    if path_first:
        paths.insert(0, str(path_first))
    environ.update(PATH=os.pathsep.join(paths), HOME=str(home), NO_COLOR="1", COLUMNS="200")
    environ["NO_PROXY"] = "127.0.0.1"
    return environ


def bash(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", line],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=1500,
    )


class Walker(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that always walks down: some episodes end in a hole."""

    def do_GET(self) -> None:
        self._send({"data": [{"id": "walker", "object": "model"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = {"role": "assistant", "content": "<action>down</action>"}
        self._send({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

    def _send(self, payload: object) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def openai_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Walker)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


def test_the_blocks_are_what_this_test_runs() -> None:
    quick = code_block("## Quick start")
    assert len(quick) == 2, "the quick start is two commands"
    assert quick[0].endswith("./quickstart.sh"), "the first one trains: --quick is added to it"
    assert (REPO / "quickstart.sh").stat().st_mode & 0o111, "quickstart.sh is executable"
    assert code_block("## Quick start", GETTING_STARTED) == quick, "the docs show the README's"
    commands = code_block("# The swift-gym command", CLI_PAGE)
    assert any(DEFAULT_URL in line for line in commands)
    assert any("--mix" in line for line in commands)
    steps = tour()
    assert [command.split()[1] for command, _ in steps if command.startswith("swift-gym")] == [
        "list",
        "eval",
        "report",
    ]
    assert all(output for _, output in steps), "each tour step shows its output"
    first_look = code_block("## A first look", GETTING_STARTED)
    assert all(line.startswith("swift-gym ") for line in first_look)


@pytest.mark.slow
def test_readme_commands_run_as_written(tmp_path: Path, openai_url: str) -> None:
    clone = checkout_copy(tmp_path / "clone")
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()

    # On Debian's own Python (pip refuses to install outside a venv there), when the machine has it.
    debian = (
        [Path("/usr/bin")] if list(Path("/usr/lib").glob("python3*/EXTERNALLY-MANAGED")) else []
    )
    setup = bash(code_block("## Quick start")[0] + " --quick", clone, clean_env(home, *debian))
    assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
    run = clone / "quickstart-run"
    for line in ("success rate before GRPO", "success rate after GRPO", f"report: {run}"):
        assert line in setup.stdout, setup.stdout
    summary = json.loads((run / "summary.json").read_text())
    assert summary["after"]["episodes"] == summary["before"]["episodes"] == 5
    assert [c["stage"] for c in summary["commands"]][-2:] == ["eval-after", "report"]
    assert (run / "report.html").read_text().startswith("<!DOCTYPE html>")
    played = [line for f in (run / "trajectories").rglob("*.jsonl") for line in f.open()]
    assert len(played) == 4, "one GRPO rollout of 4 episodes, each kept"
    venv_bin = clone / ".venv" / "bin"
    if debian:
        assert "home = /usr/bin" in (clone / ".venv" / "pyvenv.cfg").read_text()
    assert (venv_bin / "swift-gym").exists()

    env = clean_env(home, path_first=venv_bin)
    # `new` needs the core's [new] extra, as its README line says.
    extra = bash('pip install --quiet "./core[new]"', clone, env)
    assert extra.returncode == 0, extra.stderr[-3000:]
    tour_dir = tmp_path / "tour"
    tour_dir.mkdir()
    for command, shown in tour():
        done = bash(command, tour_dir, {**env, "COLUMNS": TOUR_COLUMNS})
        assert done.returncode == 0, f"{command}\nexit {done.returncode}\n{done.stderr[-2000:]}"
        printed = [line.rstrip() for line in (done.stdout + done.stderr).splitlines()]
        assert [line for line in printed if line] == shown, command

    lines = code_block("## A first look", GETTING_STARTED) + code_block(
        "# The swift-gym command", CLI_PAGE
    )
    for line in lines:
        done = bash(line.replace(DEFAULT_URL, openai_url), work, env)
        assert done.returncode == 0, (
            f"{line}\nexit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )

    rows = [json.loads(line) for line in (work / "mix.jsonl").read_text().splitlines()]
    names = [row["env_config"]["name"] for row in rows]
    assert (names.count("frozen_lake"), names.count("maze_walker")) == (768, 256)
    page = (work / "compare.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "B &minus; A" in page
