"""The workspace (a work tree and commands in the sandbox): what it costs next to the bare host.

Goals (issue 37's): setting up an episode's work tree from a 1 MB project at p50 under 50 ms
(the sandbox started and the tree copied in, against `shutil.copytree` of the same tree on the
host and against a workspace with no source); a warm `bash` call of `true` at p50 under 5 ms
(against `bash -c true` started bare from asyncio, as a host-side tool would); a test run in the
sandbox within 1.3x the same command run bare (the same interpreter, PYTHONPATH and variables,
in a copy of the same tree on the host): a unittest suite, and the same tests under pytest
(mounted from this environment's site-packages) where pytest is installed.
Needs bubblewrap; where it cannot run, the benchmark says so and reports nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench_timing import goal, median, ratio_row, without_sandbox, write_json

from swift_gym.errors import SandboxUnavailableError
from swift_gym.sandbox import SandboxLimits, Workspace
from swift_gym.sandbox.command import interpreter

SETUP_GOAL_MS = 50.0
CALL_GOAL_MS = 5.0
TEST_GOAL = 1.3
PROJECT_BYTES = 1_000_000
LIMITS = SandboxLimits(wall_seconds=120, cpu_seconds=120)


def make_project(root: Path, modules: int = 100) -> None:
    """A package of `modules` modules (about PROJECT_BYTES in all) and a test per module."""
    package, tests = root / "pkg", root / "tests"
    package.mkdir(parents=True)
    tests.mkdir()
    (package / "__init__.py").write_text("")
    (tests / "__init__.py").write_text("")
    filler = "# " + "x" * 76 + "\n"
    per_module = PROJECT_BYTES // modules
    for index in range(modules):
        body = f"def f{index}(n):\n    return sum(range(n)) + {index}\n\n"
        (package / f"m{index}.py").write_text(body + filler * (per_module // len(filler)))
        (tests / f"test_m{index}.py").write_text(
            f"import unittest\nfrom pkg.m{index} import f{index}\n\n\n"
            f"class T{index}(unittest.TestCase):\n"
            + "".join(
                f"    def test_{case}(self):\n"
                f"        self.assertEqual(f{index}({case * 100}), {sum(range(case * 100))}"
                f" + {index})\n"
                for case in range(5)
            )
        )


def size_of(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


async def timed(function: Callable[[], Awaitable[Any]]) -> float:
    """ms to await `function()`; what it returns, if anything, is awaited after (untimed)."""
    start = time.perf_counter()
    after = await function()
    spent = (time.perf_counter() - start) * 1000
    if after is not None:
        await after
    return spent


async def in_turns(
    sides: dict[str, Callable[[], Awaitable[Any]]], rounds: int
) -> dict[str, list[float]]:
    """Each side's ms per round, the sides taking turns (order rotated each round)."""
    for function in sides.values():
        await timed(function)
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for index in range(rounds):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(await timed(sides[name]))
    return times


def paired(ours: list[float], base: list[float]) -> float:
    return median([a / b for a, b in zip(ours, base, strict=True)])


async def setup_cost(project: Path, scratch: Path, rounds: int) -> dict[str, list[float]]:
    async def with_source() -> Awaitable[None]:
        workspace = Workspace(LIMITS, source=project)
        await workspace.start()  # timed up to here: the tree is ready for the first call
        return workspace.close()

    async def without_source() -> Awaitable[None]:
        workspace = Workspace(LIMITS)
        await workspace.start()
        return workspace.close()

    async def host_copy() -> Awaitable[None]:
        target = scratch / "copy"
        shutil.copytree(project, target, symlinks=True)

        async def remove() -> None:
            shutil.rmtree(target)

        return remove()

    return await in_turns(
        {"workspace": with_source, "empty": without_source, "copytree": host_copy}, rounds
    )


async def bare(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    assert process.returncode == 0, out[-2000:]
    return out.decode("utf-8", "replace")


async def call_cost(calls: int) -> dict[str, list[float]]:
    async with Workspace(LIMITS) as workspace:

        async def warm() -> None:
            result = await workspace.run("true")
            assert result.exit_code == 0, result

        async def plain() -> None:
            await bare(["bash", "-c", "true"])

        return await in_turns({"workspace": warm, "bare": plain}, calls)


def pytest_dir() -> Path | None:
    try:
        import pytest
    except ImportError:
        return None
    return Path(pytest.__file__).resolve().parents[1]


async def test_cost(project: Path, scratch: Path, rounds: int) -> dict[str, dict[str, list[float]]]:
    site = pytest_dir()
    python = interpreter()[0]
    tree = scratch / "tree"
    shutil.copytree(project, tree)
    commands = {"unittest": "python -m unittest -q"}
    if site is not None:
        commands["pytest"] = "python -m pytest -q -p no:cacheprovider"
    results = {}
    variables = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # the plugins of site-packages' .pth
    paths = [site] if site else []
    async with Workspace(LIMITS, source=project, python_paths=paths, environment=variables) as ws:
        for name, command in commands.items():
            env = {"PATH": f"{Path(python).parent}:/usr/bin:/bin", "HOME": str(tree),
                   "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", **variables}  # fmt: skip
            if site is not None:
                env["PYTHONPATH"] = str(site)
            argv = [python, *command.split()[1:]]

            async def sandboxed(command: str = command) -> None:
                result = await ws.run(command, timeout=120)
                assert result.exit_code == 0, result

            async def plain(argv: list[str] = argv, env: dict[str, str] = env) -> None:
                await bare(argv, cwd=tree, env=env)

            results[name] = await in_turns({"workspace": sandboxed, "bare": plain}, rounds)
    return results


async def measure(rounds: int, calls: int, test_rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        project = scratch / "project"
        make_project(project)
        size = size_of(project)
        files = sum(1 for path in project.rglob("*") if path.is_file())
        setup = await setup_cost(project, scratch, rounds)
        call = await call_cost(calls)
        tests = await test_cost(project, scratch, test_rounds)
    setup_ms = median(setup["workspace"])
    call_ms = median(call["workspace"])
    rows = [
        ratio_row(
            f"workspace set up from a {size / 1e6:.1f} MB tree ({files} files) vs copytree on the "
            "host",
            setup_ms,
            median(setup["copytree"]),
            " ms",
        ),
        ratio_row(
            "workspace set up from that tree vs a workspace with no source",
            setup_ms,
            median(setup["empty"]),
            " ms",
        ),
        ratio_row(
            "warm bash `true` p50 vs `bash -c true` bare", call_ms, median(call["bare"]), " ms"
        ),
    ]
    rows[0]["ratio"] = paired(setup["workspace"], setup["copytree"])
    rows[1]["ratio"] = paired(setup["workspace"], setup["empty"])
    rows[2]["ratio"] = paired(call["workspace"], call["bare"])
    goals = [
        goal(
            f"workspace set up from a 1 MB project: p50 under {SETUP_GOAL_MS:g} ms",
            f"{setup_ms:.1f} ms",
            setup_ms < SETUP_GOAL_MS,
            "the sandbox's own start (bubblewrap and the interpreter) is most of it: see the "
            "row against a workspace with no source",
        ),
        goal(
            f"warm bash call of `true`: p50 under {CALL_GOAL_MS:g} ms",
            f"{call_ms:.2f} ms",
            call_ms < CALL_GOAL_MS,
            "a fork and exec of bash inside, and every process of the sandbox killed and "
            "reaped after it: see the row against bash started bare",
        ),
    ]
    for name, times in tests.items():
        ours, base = median(times["workspace"]), median(times["bare"])
        ratio = paired(times["workspace"], times["bare"])
        rows.append(
            ratio_row(f"test run ({name}, 500 tests) in the workspace vs bare", ours, base, " ms")
        )
        rows[-1]["ratio"] = ratio
        goals.append(
            goal(
                f"a test run ({name}) within {TEST_GOAL:g}x the same command bare",
                f"{ratio:.2f}x",
                ratio <= TEST_GOAL,
            )
        )
    return {
        "benchmark": "workspace",
        "repeats": rounds,
        "detail": f"bubblewrap {shutil.which('bwrap')}; set-up: {rounds} rounds in turns; warm "
        f"call: {calls} calls in turns with bash started bare; test runs: {test_rounds} rounds "
        "in turns; ratios are medians of paired ratios",
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--test-rounds", type=int, default=7)
    parser.add_argument("--json")
    args = parser.parse_args()
    try:
        measured = asyncio.run(measure(args.rounds, args.calls, args.test_rounds))
    except SandboxUnavailableError as error:  # no bwrap, or no user namespaces here
        measured = without_sandbox("workspace", error)
    write_json(args.json, measured)


if __name__ == "__main__":
    main()
