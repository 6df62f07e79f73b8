"""The core's layers are import-linter contracts (the repository's pyproject.toml), run by
`tox -e lint`. These tests run the same `lint-imports` on the same contracts: the real tree keeps
them, and a copy of the core with a forbidden import planted breaks them, naming the contract and
the import. Each run reads the source only (nothing is imported) and takes about half a second.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="import-linter is in the tests and lint envs")
tomllib = pytest.importorskip("tomllib")

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "pyproject.toml"
SOURCE = REPO / "core" / "src" / "swift_gym"


def contract_name(contract_id: str) -> str:
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return next(c["name"] for c in contracts if c["id"] == contract_id)


def lint_imports(source_root: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` with the repository's contracts, on the `swift_gym` under `source_root`."""
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert command, "lint-imports is not installed beside this Python"
    env = {**os.environ, "PYTHONPATH": str(source_root)}
    return subprocess.run(
        [command, "--no-cache", "--no-logo", str(CONFIG)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_core_keeps_its_contracts(tmp_path: Path) -> None:
    run = lint_imports(SOURCE.parent, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 broken." in run.stdout
    assert contract_name("rooms") in " ".join(run.stdout.split())


def test_a_planted_import_breaks_the_contract_it_crosses(tmp_path: Path) -> None:
    copy = tmp_path / "swift_gym"
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # the contract's bottom imports the command; the sandbox reads the env registry
    with (copy / "env.py").open("a", encoding="utf-8") as env:
        env.write("\nimport swift_gym.cli  # planted\n")
    with (copy / "sandbox" / "limits.py").open("a", encoding="utf-8") as limits:
        limits.write("\nfrom ..registry import default_registry  # planted\n")

    run = lint_imports(tmp_path, tmp_path)

    assert run.returncode == 1, run.stdout + run.stderr
    report = " ".join(run.stdout.split())  # lint-imports wraps long names over lines
    assert f"{contract_name('rooms')} BROKEN" in report
    assert f"{contract_name('sandbox-knows-no-envs')} BROKEN" in report
    assert "swift_gym.env -> swift_gym.cli" in report
    assert "swift_gym.sandbox.limits -> swift_gym.registry" in report
