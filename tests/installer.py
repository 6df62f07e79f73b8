"""How the cross-package tests build wheels and install into the fresh venvs they make: uv where
there is one.

uv installs the same distributions as pip, several times faster; every tox env installs it, so
it sits beside the tests' Python. Without it (a hand-made venv) the venvs get pip of their own.
The README's quick start, which users run with pip, is run with pip (tests/test_readme.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

_BESIDE = Path(sys.executable).with_name("uv")
UV = str(_BESIDE) if _BESIDE.is_file() else shutil.which("uv")


def install_command(python: Path | str) -> list[str]:
    """`pip install --quiet` into the venv of `python`, to be followed by what to install."""
    if UV:
        return [UV, "pip", "install", "--quiet", "--python", str(python)]
    return [str(python), "-m", "pip", "install", "--quiet"]


def needs_pip() -> bool:
    """Whether a new venv needs pip of its own for `install_command` (no uv here)."""
    return UV is None


def build_wheels(sources: Iterable[Path | str], out: Path) -> list[Path]:
    """Build a wheel of each source tree into `out` (`uv build`, which keeps each build
    backend's environment between builds; else `pip wheel`); the wheels built, sorted."""
    sources = [str(source) for source in sources]
    if UV:
        for source in sources:
            command = [UV, "build", "--quiet", "--wheel", "--out-dir", str(out), source]
            subprocess.run(command, check=True, timeout=900)
    else:
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out)]
        subprocess.run([*command, *sources], check=True, timeout=900)
    return sorted(out.glob("*.whl"))
