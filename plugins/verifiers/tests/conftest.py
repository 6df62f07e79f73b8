"""The tests use the installed packages: swift-gym-verifiers and the example environments."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent
for module, install in (
    ("swift_gym_verifiers", 'pip install "./core[agent]" ./plugins/verifiers'),
    ("sg_reverse", "pip install ./plugins/verifiers/tests/environments"),
):
    if importlib.util.find_spec(module) is None:
        raise pytest.UsageError(
            f"{module} is not installed: {install} (tox -e verifiers does it), then pytest again."
        )


@pytest.fixture
def scripted_model(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`vf_openai_server.py` on 127.0.0.1: (its base URL, its request log)."""
    log = tmp_path / "requests.jsonl"
    log.touch()
    environ = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    process = subprocess.Popen(
        [sys.executable, str(HERE / "vf_openai_server.py"), "--log", str(log)],
        stdout=subprocess.PIPE,
        text=True,
        env=environ,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("listening "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1", log
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME in tmp_path: verifiers' subprocess runtimes make their folders under it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home
