"""Every install hint the project prints or documents installs in a fresh venv: each command that
tests/install_lines.py finds (tests/test_install_lines.py checks what it names) is resolved, as
`pip install --dry-run` resolves it, into an empty venv made here, from the clone's root where
the pages run it.

The commands are resolved together, a group at a time (one resolution is about a second, mostly
the index answering): when a group's requirements resolve together, each command's resolve
alone, since every command names the path of each of our packages it needs (the packages of the
clone are on no index; test_install_lines checks it), so what a command asks of the index is
a part of what the group asks. A group that fails is split in halves until the commands that
fail alone are found. The verifiers package is a group of its own: verifiers 0.4.0 pins
`mcp==2.0.0`, the core's `mcp` extra takes `<2` (as in tox.ini, where `verifiers` is an env of
its own).

Commands that take in torch (the core's `swift` extra: ms-swift; vllm; torch), or Ray, are
resolved without their dependencies (`--no-deps`): each named package must exist, at a path of
the clone with the extras it declares or on the index, but their trees (torch's and CUDA's
hundreds of packages, which change with each release of theirs) are not solved here: the
`swift`, `vllm` and `ray` envs install those stacks for real, at the versions CI pins.
`-e` and `--force-reinstall` change nothing a resolution into an empty venv checks: dropped.
"""

from __future__ import annotations

import re
import subprocess
import sys
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from install_lines import REPO
from installer import UV
from test_install_lines import RUN

HEAVY = {"torch", "vllm", "ms-swift", "ray"}
HEAVY_EXTRAS = {"swift", "ray"}
DROPPED = {"-e", "--force-reinstall"}
NO_EXTRA = re.compile(r"does not (?:have|provide) (?:an|the) extra", re.I)
Command = tuple[str, ...]


def _heavy(args: Command) -> bool:
    for arg in args:
        name = re.split(r"[\[<>=!~ ]", arg, maxsplit=1)[0]
        extras = set(arg.partition("[")[2].partition("]")[0].split(","))
        if arg == "--no-deps" or name in HEAVY or extras & HEAVY_EXTRAS:
            return True
    return False


def _groups() -> dict[str, dict[Command, list[str]]]:
    """Each distinct command (its arguments) and where it is, by group."""
    groups: dict[str, dict[Command, list[str]]] = {"light": {}, "verifiers": {}, "no-deps": {}}
    for line in RUN:
        args = tuple(arg.text for arg in line.args if arg.text not in DROPPED)
        group = (
            "no-deps" if _heavy(args)
            else "verifiers" if any("plugins/verifiers" in arg for arg in args)
            else "light"
        )  # fmt: skip
        groups[group].setdefault(tuple(a for a in args if a != "--no-deps"), []).append(line.where)
    return groups


def _resolve(python: Path, args: Command, no_deps: bool) -> subprocess.CompletedProcess[str]:
    flags = ["--dry-run", *(["--no-deps"] if no_deps else [])]
    if UV:
        command = [UV, "pip", "install", "--python", str(python), *flags, *args]
    else:
        command = [sys.executable, "-m", "pip", "--python", str(python), "install", *flags, *args]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    if result.returncode == 0 and NO_EXTRA.search(result.stdout + result.stderr):
        result.returncode = 1  # pip and uv only warn of an extra a package does not have
    return result


def _failing(python: Path, commands: list[Command], no_deps: bool) -> list[tuple[Command, str]]:
    """The commands that fail alone, found by halving the group until each part resolves."""
    union = tuple(dict.fromkeys(arg for command in commands for arg in command))
    result = _resolve(python, union, no_deps)
    if result.returncode == 0:
        return []
    if len(commands) == 1:
        return [(commands[0], (result.stdout + result.stderr).strip()[-1500:])]
    half = len(commands) // 2
    return _failing(python, commands[:half], no_deps) + _failing(python, commands[half:], no_deps)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_every_install_hint_resolves_in_a_fresh_venv(tmp_path: Path) -> None:
    groups = _groups()
    assert sum(len(commands) for commands in groups.values()) > 20
    assert all(groups.values()), "a group found no command: tests/install_lines.py reads less"

    def check(name: str) -> list[tuple[Command, str]]:
        venv.create(tmp_path / name, with_pip=False)  # uv locks a venv: one each
        python = tmp_path / name / "bin" / "python"
        return _failing(python, list(groups[name]), no_deps=name == "no-deps")

    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        failed = [
            f"{', '.join(groups[name][command])}: pip install {' '.join(command)}\n{output}"
            for name, found in zip(groups, pool.map(check, groups), strict=True)
            for command, output in found
        ]
    assert failed == [], "\n\n".join(failed)
