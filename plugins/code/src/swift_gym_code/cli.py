"""The `swift-gym-code` command: a thin face over swift_gym_code.repair.

swift-gym-code prefetch            fetch (hash-checked) and unpack every pinned project
swift-gym-code generate -o FILE    remake the code.repair task list from the same sdists
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time

from .repair import generate as generation
from .repair.fetch import CACHE_VARIABLE, FetchError, cache_dir, unpacked_source
from .repair.projects import PROJECTS, project_named
from .repair.runner import HostRunner
from .repair.tasks import write_tasks


def _projects(names: list[str] | None):
    return [project_named(name) for name in names] if names else list(PROJECTS)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="swift-gym-code",
        description="Tools for swift-gym-code's code.repair tasks (bugs in pinned PyPI projects).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    names = ", ".join(p.name for p in PROJECTS)
    cache_help = (
        f"where sdists are kept and unpacked (default: ${CACHE_VARIABLE}, else "
        f"~/.cache/swift-gym/code)"
    )

    prefetch = sub.add_parser("prefetch", help="fetch and unpack the pinned projects' sdists")
    prefetch.add_argument("--project", action="append", help=f"only this project ({names})")
    prefetch.add_argument("--cache", help=cache_help)

    gen = sub.add_parser(
        "generate",
        help="mutate the projects, validate each bug with their tests, write the task list",
        description="Remake the task list: the same sdists, seed and limits give the same file, "
        "byte for byte. The suites run bare on this machine (niced), WORKERS at a time.",
    )
    gen.add_argument("-o", "--output", required=True, help="the JSON-lines file to write")
    gen.add_argument("--project", action="append", help=f"only this project ({names})")
    gen.add_argument(
        "--limit",
        type=int,
        default=generation.TASKS_PER_PROJECT,
        help="tasks kept per project (default: %(default)s)",
    )
    gen.add_argument(
        "--max-tries",
        type=int,
        default=generation.MAX_TRIES,
        help="candidates tried per project at most (default: %(default)s)",
    )
    gen.add_argument("--seed", default=generation.DEFAULT_SEED, help="default: %(default)s")
    gen.add_argument("--workers", type=int, default=generation.WORKERS, help="suites at once")
    gen.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter (with pytest) that runs the suites (default: this one)",
    )
    gen.add_argument("--cache", help=cache_help)
    return parser


def _prefetch(args: argparse.Namespace) -> int:
    for project in _projects(args.project):
        root = unpacked_source(project, args.cache)
        print(f"{project.requirement}: {root}")
    print(f"cache: {cache_dir(args.cache)}")
    return 0


def _generate(args: argparse.Namespace) -> int:
    if args.limit < 1 or args.max_tries < 1 or args.workers < 1:
        raise ValueError("--limit, --max-tries and --workers must be at least 1")
    _require_pytest(args.python)
    runner = HostRunner(args.python)
    started = time.monotonic()
    try:
        tasks, stats = generation.generate(
            _projects(args.project),
            runner,
            cache=args.cache,
            seed=args.seed,
            limit=args.limit,
            max_tries=args.max_tries,
            workers=args.workers,
            log=lambda line: print(line, file=sys.stderr, flush=True),
        )
    finally:
        runner.close()
    write_tasks(args.output, tasks)
    for s in stats:
        print(
            f"{s.project}: {s.kept} kept of {s.tried} tried ({s.sites} sites; "
            f"{s.baseline_passed} tests, {s.baseline_seconds:.1f}s a run); rejected: "
            + ", ".join(f"{why} {n}" for why, n in sorted(s.rejected.items())),
        )
    print(f"{len(tasks)} tasks written to {args.output} in {time.monotonic() - started:.0f}s")
    return 0


def _require_pytest(python: str) -> None:
    if python == sys.executable:
        if importlib.util.find_spec("pytest") is None:
            raise ValueError(f"{python} has no pytest; install it or pass --python")
        return
    if not os.path.exists(python):
        raise ValueError(f"--python {python}: no such file")
    done = subprocess.run([python, "-c", "import pytest"], capture_output=True)
    if done.returncode != 0:
        raise ValueError(f"--python {python} cannot import pytest; install it there")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "prefetch":
            return _prefetch(args)
        return _generate(args)
    except (FetchError, ValueError, RuntimeError) as e:
        print(f"swift-gym-code: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
