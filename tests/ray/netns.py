"""Runs a test's script in a network namespace of its own, with only loopback up.

Ray 2.60 binds the machine's non-loopback address even when told 127.0.0.1; in a namespace
whose only interface is `lo` it uses 127.0.0.1, so the tests' traffic stays on this machine and
clusters of parallel tests never meet. Needs root (`unshare -n`); the script prints JSON last.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent


def usable() -> str | None:
    """Why these tests cannot run here, or None."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return "ray is not installed (pip install './core[ray]' in a clone)"
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return "needs root, unshare and ip, for a network namespace of the test's own"
    probe = subprocess.run(
        ["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True, text=True
    )
    if probe.returncode:
        return f"unshare -n fails here: {probe.stderr.strip()[:200]}"
    return None


def run(script: str, *args: str, timeout: float = 400, env: dict[str, str] | None = None) -> Any:
    """Run `HERE/script` under `unshare -n` with loopback up; its last stdout line as JSON."""
    why = usable()
    if why:
        pytest.skip(why)
    command = " ".join(["exec", sys.executable, str(HERE / script), *args])
    process = subprocess.Popen(
        ["unshare", "-n", "sh", "-c", f"ip link set lo up && {command}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **(env or {})},
        cwd=HERE,
        start_new_session=True,  # the cluster's processes too, to end them all on a timeout
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"{script} ran past {timeout:g} s; its stderr ends:\n{err[-5000:]}")
    lines = out.strip().splitlines()
    assert process.returncode == 0 and lines, (
        f"{script} failed ({process.returncode}):\n{out[-3000:]}\n{err[-5000:]}"
    )
    return json.loads(lines[-1])
