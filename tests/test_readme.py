"""The README's commands work as written: the quick start's first line in a copy of the checkout,
then every line of "The swift-gym command" block, in order, in the venv that line made.

Only what a test cannot do alone is changed: the OpenAI line points at a scripted server on
127.0.0.1 instead of port 8000, and `~` is a temporary home. A README example that fails (as
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

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
DEFAULT_URL = "http://127.0.0.1:8000/v1"


def code_block(after_heading: str) -> list[str]:
    """The non-empty lines of the first ```bash block under `after_heading`."""
    section = README.split(after_heading, 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, f"no bash block under {after_heading!r}"
    return [line for line in block.group(1).splitlines() if line.strip()]


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
        timeout=900,
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
    commands = code_block("## The swift-gym command")
    assert any(DEFAULT_URL in line for line in commands)
    assert any("--mix" in line for line in commands)


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
    setup = bash(code_block("## Quick start")[0], clone, clean_env(home, *debian))
    assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
    assert "success" in setup.stdout.lower(), setup.stdout
    venv_bin = clone / ".venv" / "bin"
    if debian:
        assert "home = /usr/bin" in (clone / ".venv" / "pyvenv.cfg").read_text()
    assert (venv_bin / "swift-gym").exists()

    env = clean_env(home, path_first=venv_bin)
    # `new` needs the core's [new] extra, as its README line says.
    extra = bash('pip install --quiet "./core[new]"', clone, env)
    assert extra.returncode == 0, extra.stderr[-3000:]
    for line in code_block("## The swift-gym command"):
        done = bash(line.replace(DEFAULT_URL, openai_url), work, env)
        assert done.returncode == 0, (
            f"{line}\nexit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )

    rows = [json.loads(line) for line in (work / "mix.jsonl").read_text().splitlines()]
    names = [row["env_config"]["name"] for row in rows]
    assert (names.count("frozen_lake"), names.count("maze_walker")) == (768, 256)
    page = (work / "compare.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "B &minus; A" in page
