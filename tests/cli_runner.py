"""Runs the installed `swift-gym` command in a new process, the way a user or a script would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

SCRIPT = Path(sys.executable).parent / "swift-gym"


def run(
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    drop: Iterable[str] = (),
) -> subprocess.CompletedProcess[str]:
    """`swift-gym ARGS`: no colour, wide lines, no SWIFT_GYM_* (nor `drop`) from the caller."""
    assert SCRIPT.exists(), f"{SCRIPT} is missing: install the core (pip install ./core)"
    dropped = set(drop)
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_") and k not in dropped
    }
    environ.update({"NO_COLOR": "1", "COLUMNS": "200", **(env or {})})
    return subprocess.run(
        [str(SCRIPT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
        cwd=cwd,
    )
