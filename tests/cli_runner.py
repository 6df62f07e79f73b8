"""Runs the installed `swift-gym` command, or a snippet of Python, in a new process, the way a
user or a script would (also for the env packages' own tests: pytest puts `tests/` on the path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SCRIPT = Path(sys.executable).parent / "swift-gym"


def run(
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    drop: Iterable[str] = (),
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """`swift-gym ARGS`: no colour, wide lines, no SWIFT_GYM_* (nor `drop`) from the caller."""
    assert SCRIPT.exists(), f"{SCRIPT} is missing: install the core (pip install ./core)"
    environ = clean_environ(drop, **{"NO_COLOR": "1", "COLUMNS": "200", **(env or {})})
    return subprocess.run(
        [str(SCRIPT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environ,
        timeout=timeout,
        cwd=cwd,
    )


def clean_environ(drop: Iterable[str] = (), **extra: str) -> dict[str, str]:
    """The caller's environment without SWIFT_GYM_* and `drop`, plus `extra`."""
    dropped = set(drop)
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_") and k not in dropped
    }
    return {**environ, **extra}


def python_json(code: str, cwd: Path, timeout: float = 120) -> Any:
    """What `code`, run by this environment's python in a new process from `cwd` (outside the
    checkout, without PYTHONPATH: only what is installed counts), prints as JSON."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=clean_environ(("PYTHONPATH",)),
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
