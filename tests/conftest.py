"""Fixtures for cross-package tests: real wheels, real virtual environments, new processes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest
from installer import build_wheels, install_command, needs_pip

REPO = Path(__file__).resolve().parents[1]

# A run started in the background by a shell without job control (`tox &`, some CI runners)
# ignores SIGINT, and every process it starts inherits that: the tests that press Ctrl-C on a
# real swift-gym would see it ignored. A handler (unlike SIG_IGN) is reset to the default at
# exec, so the processes these tests start get Ctrl-C as a user's terminal delivers it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
PACKAGES = (REPO / "core", REPO / "plugins" / "frozen_lake")


@dataclass
class Venv:
    """A virtual environment made for one test session; runs code in new processes."""

    path: Path

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def pip(self, *args: str | Path) -> None:
        """`pip install ARGS` into this venv (through uv where there is one: installer.py)."""
        command = [*install_command(self.python), *map(str, args)]
        subprocess.run(command, check=True, timeout=900)

    def run(self, code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run `code` with this venv's python in a fresh process, from a neutral directory."""
        environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
        environ.pop("PYTHONPATH", None)
        environ.update(env or {})
        return subprocess.run(
            [str(self.python), "-c", code],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=self.path,
            env=environ,
        )


@pytest.fixture(scope="session")
def bwrap() -> str:
    """The `bwrap` reasoning-gym's `python` tool runs with (skipped, or failed, without it)."""
    from swift_gym.testing.bubblewrap import require_bwrap

    return require_bwrap()


def make_venv(path: Path) -> Venv:
    """A new venv at `path`; with pip of its own only where `Venv.pip` needs it (no uv)."""
    venv.EnvBuilder(with_pip=needs_pip(), clear=True).create(path)
    return Venv(path)


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Wheels of the core and FrozenLake, built from this checkout."""
    return build_wheels(PACKAGES, tmp_path_factory.mktemp("wheels"))


@pytest.fixture(scope="session")
def installed_venv(tmp_path_factory: pytest.TempPathFactory, wheels: list[Path]) -> Venv:
    """A fresh venv with the two wheels installed, as a user would."""
    env = make_venv(tmp_path_factory.mktemp("venv") / "installed")
    env.pip(*wheels)
    return env


@pytest.fixture(scope="session")
def editable_venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """A fresh venv with the two packages installed in editable mode from this checkout."""
    env = make_venv(tmp_path_factory.mktemp("venv") / "editable")
    env.pip(*[arg for package in PACKAGES for arg in ("-e", package)])
    return env


@pytest.fixture
def lock_site(tmp_path: Path) -> dict[str, str]:
    """A distribution `lock-envs` with the env `code_lock` (tool_envs.CodeLock), on PYTHONPATH."""
    site = tmp_path / "site"
    info = site / "lock_envs-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lock-envs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[swift_gym.envs]\ncode_lock = tool_envs:CodeLock\n")
    shutil.copy(REPO / "tests" / "tool_envs.py", site / "tool_envs.py")
    return {"PYTHONPATH": str(site)}
