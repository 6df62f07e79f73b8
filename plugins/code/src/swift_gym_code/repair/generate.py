"""Making code.repair's tasks: mutate a pinned project, run its suite with and without the bug,
and keep the bug only when the tests prove it.

For each project: every mutation site of its source files, sorted, shuffled by an RNG seeded
with (seed, project, version); the suite run twice on the pristine tree (a test must pass both
times to count); then candidates in that order, `workers` at a time, each in a fresh copy of the
tree. A candidate is kept when some tests that passed without it fail with it (FAIL_TO_PASS, at
most MAX_FAIL_TO_PASS: a bug that breaks half the suite makes a poor task) and the suite did not
time out; PASS_TO_PASS is what passed both ways. Decisions are taken in candidate order, so the
same sdists, seed and limits give the same tasks, and a smaller --limit gives a prefix of them."""

from __future__ import annotations

import ast
import hashlib
import os
import random
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .fetch import unpacked_source
from .mutation import Mutation, changes_code, mutations
from .patches import apply_patch, make_patch
from .projects import Project
from .runner import TestOutcomes, TestRunner, read_outcomes
from .statement import problem_statement
from .tasks import RepairTask

DEFAULT_SEED = "swift-gym-code-repair-1"
TASKS_PER_PROJECT = 48
MAX_TRIES = 400
MAX_FAIL_TO_PASS = 30
MAX_PER_FUNCTION = 2
WORKERS = 2


@dataclass
class ProjectStats:
    project: str
    baseline_passed: int = 0
    baseline_seconds: float = 0.0
    sites: int = 0
    tried: int = 0
    kept: int = 0
    rejected: Counter = field(default_factory=Counter)


@dataclass(frozen=True)
class _Outcome:
    mutation: Mutation
    patch: str
    tests: TestOutcomes
    tree: str
    output: str


def candidates(project: Project, source_root: Path, seed: str) -> Iterator[Mutation]:
    """The project's mutations in the order they are tried (those that change the code)."""
    texts = {p: (source_root / p).read_text(encoding="utf-8") for p in project.sources}
    found: list[Mutation] = []
    for path, text in texts.items():
        found.extend(mutations(text, path))
    found.sort()
    random.Random(f"{seed}/{project.name}-{project.version}").shuffle(found)
    dumps: dict[str, str] = {}
    for mutation in found:
        text = texts[mutation.path]
        if mutation.path not in dumps:
            dumps[mutation.path] = ast.dump(ast.parse(text))
        if changes_code(text, mutation, dumps[mutation.path]):
            yield mutation


def generate_project(
    project: Project,
    runner: TestRunner,
    *,
    cache: str | os.PathLike[str] | None = None,
    seed: str = DEFAULT_SEED,
    limit: int = TASKS_PER_PROJECT,
    max_tries: int = MAX_TRIES,
    workers: int = WORKERS,
    log: Callable[[str], None] = lambda line: None,
) -> tuple[list[RepairTask], ProjectStats]:
    """Up to `limit` validated tasks of one project, trying at most `max_tries` candidates."""
    source = unpacked_source(project, cache)
    stats = ProjectStats(project.name)
    command = project.test_command
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool:
        first, second = pool.map(
            lambda _: _run_copy(source, None, runner, command, 600.0), range(2)
        )
    stats.baseline_seconds = (time.monotonic() - started) / 2 * min(2, workers)
    baseline = first.tests.passed & second.tests.passed
    stats.baseline_passed = len(baseline)
    if not baseline:
        raise RuntimeError(
            f"{project.requirement}: no test passed on the pristine tree; is pytest installed "
            f"in the interpreter that runs the suite? Its output ended:\n{first.output[-2000:]}"
        )
    timeout = max(60.0, 10 * stats.baseline_seconds)
    log(f"{project.requirement}: {len(baseline)} tests pass ({stats.baseline_seconds:.1f}s)")

    stats.sites = sum(
        len(mutations((source / p).read_text(encoding="utf-8"), p)) for p in project.sources
    )
    per_function: Counter = Counter()
    tasks: list[RepairTask] = []
    queue = candidates(project, source, seed)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        while len(tasks) < limit and stats.tried < max_tries:
            batch = []
            for mutation in queue:
                if per_function[(mutation.path, mutation.function)] < MAX_PER_FUNCTION:
                    batch.append(mutation)
                if len(batch) == min(workers, max_tries - stats.tried):
                    break
            if not batch:
                break
            runs = list(pool.map(lambda m: _run_copy(source, m, runner, command, timeout), batch))
            for run in runs:
                if len(tasks) >= limit or stats.tried >= max_tries:
                    break
                stats.tried += 1
                task, why = _judge(project, run, baseline, per_function)
                if task is None:
                    stats.rejected[why] += 1
                    continue
                per_function[(run.mutation.path, run.mutation.function)] += 1
                tasks.append(task)
                log(f"  kept {task.id}: {run.mutation.operator}, {len(task.FAIL_TO_PASS)} failing")
    stats.kept = len(tasks)
    return tasks, stats


def _run_copy(
    source: Path, mutation: Mutation | None, runner: TestRunner, command: str, timeout: float
) -> _Outcome:
    """Run the suite in a fresh copy of the tree, with the mutation's patch applied if any."""
    with tempfile.TemporaryDirectory(prefix="swift-gym-code-") as tmp:
        tree = Path(tmp) / "project"
        shutil.copytree(source, tree, symlinks=True)
        patch = ""
        if mutation is not None:
            before = (tree / mutation.path).read_text(encoding="utf-8")
            patch = make_patch(mutation.path, before, mutation.apply(before))
            apply_patch(tree, patch)
        result = runner.run(tree, command, timeout)
        if result.exit_code is None:
            tests = TestOutcomes(frozenset(), {}, timed_out=True)
        else:
            tests = read_outcomes(result.output)
        return _Outcome(mutation, patch, tests, str(tree), result.output)


def _judge(
    project: Project, run: _Outcome, baseline: frozenset[str], per_function: Counter
) -> tuple[RepairTask | None, str]:
    mutation = run.mutation
    if per_function[(mutation.path, mutation.function)] >= MAX_PER_FUNCTION:
        return None, "function already has enough tasks"
    if run.tests.timed_out:
        return None, "timed out"
    fail_to_pass = sorted(baseline - run.tests.passed)
    if not fail_to_pass:
        return None, "no test fails"
    if len(fail_to_pass) > MAX_FAIL_TO_PASS:
        return None, f"more than {MAX_FAIL_TO_PASS} tests fail"
    pass_to_pass = sorted(baseline & run.tests.passed)
    reasons = {
        node: run.tests.failed.get(node, "not run (it was not collected)") for node in fail_to_pass
    }
    statement = problem_statement(
        project.name, project.version, reasons, tree=run.tree, changed=mutation.path
    )
    digest = hashlib.sha256(run.patch.encode("utf-8")).hexdigest()[:12]
    task = RepairTask(
        id=f"{project.name}-{project.version}-{digest}",
        project=project.name,
        version=project.version,
        sdist=project.sdist,
        sha256=project.sha256,
        test_command=project.test_command,
        patch=run.patch,
        FAIL_TO_PASS=tuple(fail_to_pass),
        PASS_TO_PASS=tuple(pass_to_pass),
        problem_statement=statement,
        operator=mutation.operator,
    )
    return task, "kept"


def generate(
    projects: list[Project],
    runner: TestRunner,
    **options,
) -> tuple[list[RepairTask], list[ProjectStats]]:
    """Tasks of several projects, one project after another."""
    tasks: list[RepairTask] = []
    all_stats: list[ProjectStats] = []
    for project in projects:
        found, stats = generate_project(project, runner, **options)
        tasks.extend(found)
        all_stats.append(stats)
    return tasks, all_stats
