"""Fixtures for the core's unit tests.

`fake_dist` writes a real `*.dist-info` directory (METADATA, entry_points.txt) and its modules
into a temporary folder on `sys.path`: importlib.metadata reads it exactly as it reads an
installed distribution, in-process. The cross-package tests in `tests/` install real wheels.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

FakeDist = Callable[..., Path]
DEBIAN_PYTHON = "/usr/bin/python3"


@pytest.fixture
def fake_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDist]:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    created: list[str] = []

    def make(
        name: str,
        version: str = "1.0",
        *,
        envs: dict[str, str] | None = None,
        plugins: dict[str, str] | None = None,
        modules: dict[str, str] | None = None,
        summary: str | None = None,
    ) -> Path:
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        if summary:
            metadata += f"Summary: {summary}\n"
        (info / "METADATA").write_text(metadata)
        sections = []
        for group, entries in (("swift_gym.envs", envs), ("swift_gym.plugins", plugins)):
            if entries:
                lines = "\n".join(f"{key} = {value}" for key, value in entries.items())
                sections.append(f"[{group}]\n{lines}\n")
        (info / "entry_points.txt").write_text("\n".join(sections))
        for module, source in (modules or {}).items():
            path = site / (module.replace(".", "/") + ".py")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(source))
            created.append(module)
        importlib.invalidate_caches()
        return info

    yield make
    for module in created:
        sys.modules.pop(module, None)


@pytest.fixture
def clean_plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No plugin filter from the caller's shell leaks into a test."""
    monkeypatch.delenv("SWIFT_GYM_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("SWIFT_GYM_DISABLE_PLUGINS", raising=False)


@pytest.fixture
def counter_module() -> str:
    """Source of a small valid env module, `CounterEnv` with a bounded `limit`."""
    return COUNTER_MODULE


COUNTER_MODULE = """
    from swift_gym import Env, EnvConfig
    from pydantic import Field


    class CounterConfig(EnvConfig):
        limit: int = Field(3, ge=1, le=100)


    class CounterEnv(Env):
        config_model = CounterConfig

        async def reset(self, request=None):
            self.count = 0
            return "count 0", {"count": 0}, "Say anything."

        async def step(self, messages):
            self.count += 1
            done = self.count >= self.config.limit
            return f"count {self.count}", float(done), done, {"count": self.count}
"""


@pytest.fixture(scope="session")
def bwrap() -> str:
    """The `bwrap` the sandbox tests run with (skipped or failed without it: require_bwrap)."""
    from swift_gym.testing.bubblewrap import require_bwrap

    return require_bwrap()


NamespaceScan = Callable[[str], list[int]]


@pytest.fixture
def processes_in() -> NamespaceScan:
    """`processes_in("pid:[4026532...]")`: the host PIDs of every process still in that PID
    namespace (as `/proc/self/ns/pid` names it inside a sandbox). The kernel keeps every
    process of a sandbox in its namespace, so an empty list means none of them survived."""

    def scan(namespace: str) -> list[int]:
        assert namespace.startswith("pid:["), namespace
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if os.readlink(f"/proc/{entry}/ns/pid") == namespace:
                        found.append(int(entry))
                except OSError:
                    continue
        return found

    return scan


class Nobody:
    """Runs programs as the unprivileged user `nobody` (see `nobody`), from `home`: a folder
    that user can read, holding a venv of Debian's Python with swift-gym's core (and its `mcp`
    extra) installed, and the files tests copy there."""

    UID = 65534

    def __init__(self, home: Path):
        self.home = home
        self.python = str(home / "venv" / "bin" / "python")

    def copy(self, *files: Path) -> None:
        """Put `files` in `home`, readable by that user."""
        for file in files:
            shutil.copy(file, self.home / file.name)
            (self.home / file.name).chmod(0o644)

    def run(self, script: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """`python home/script ARGS` as `nobody`, with a minimal environment, in `/`."""
        setpriv = ["setpriv", f"--reuid={self.UID}", f"--regid={self.UID}", "--clear-groups"]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": "/"}
        argv = [*setpriv, self.python, str(self.home / script), *args]
        return subprocess.run(
            argv, input=stdin, capture_output=True, text=True, env=env, cwd="/", timeout=600
        )


@pytest.fixture(scope="session")
def nobody() -> Iterator[Nobody]:
    """The tests' unprivileged user. It needs root (to switch user), setpriv, uv and Debian's
    /usr/bin/python3 (the project's venvs may live where `nobody` cannot read); without them the
    tests skip, or fail with SWIFT_GYM_SANDBOX_TESTS=required. The core is a real install, not
    this checkout (which that user may not read either)."""
    if os.geteuid() != 0:
        pytest.skip("running a test as another user needs root to switch to it")
    uv = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if not uv or not os.access(DEBIAN_PYTHON, os.X_OK) or not shutil.which("setpriv"):
        why = "the unprivileged runs need uv, setpriv and Debian's /usr/bin/python3"
        if os.environ.get("SWIFT_GYM_SANDBOX_TESTS") == "required":
            pytest.fail(f"{why} (SWIFT_GYM_SANDBOX_TESTS=required)")
        pytest.skip(why)
    home = Path(tempfile.mkdtemp(prefix="swift-gym-nobody-"))
    try:
        home.chmod(0o755)
        venv = home / "venv"
        subprocess.run([uv, "venv", "--quiet", "--python", DEBIAN_PYTHON, str(venv)], check=True)
        core = Path(__file__).parents[1]
        subprocess.run(
            [uv, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
             f"{core}[mcp]"],
            check=True,
        )  # fmt: skip
        subprocess.run(["chmod", "-R", "a+rX", str(home)], check=True)
        yield Nobody(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
