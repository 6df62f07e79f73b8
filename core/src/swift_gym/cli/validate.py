"""`swift-gym validate`: check every row of a dataset before a training run finds the bad one.

What it prints is bounded whatever the file holds: values are cut, names and reasons escaped,
a row lists `MAX_PROBLEMS` problems and counts the rest, and `--json` lists `MAX_JSON_PROBLEMS`.
A problem of the env itself (a package that fails to load) is printed once, at its first row,
not for each of its rows (`--json` still lists it for each row).
"""

from __future__ import annotations

import stat
from collections import Counter
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from ..rows import STDIN, RowCheck, RowChecker, problem_fields, read_jsonl
from . import visible
from .console import cells, print_json, stderr, stdout
from .errors import EXIT_OK, EXIT_PROBLEMS
from .options import json_option
from .progress import progress_bar

MAX_JSON_PROBLEMS = 1000
"""Problems `--json` lists at most; `problems_omitted` counts the rest."""


def _size(dataset: Path) -> int | None:
    """Bytes to read, for the progress bar; None for stdin, pipes and FIFOs."""
    if str(dataset) == STDIN:
        return None
    info = dataset.stat()
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def _problem_dicts(line: int, check: RowCheck) -> list[dict[str, Any]]:
    found = [{"line": line, "env": check.env, **problem_fields(p)} for p in check.problems]
    if check.omitted:
        more = f"and {check.omitted} more problems in this row (not listed)"
        found.append({"line": line, "env": check.env, "field": "env_config", "reason": more})
    return found


@click.command()
@click.argument(
    "dataset", type=click.Path(exists=True, dir_okay=False, path_type=Path, allow_dash=True)
)
@click.option(
    "--gym-env",
    "gym_env",
    metavar="NAME",
    help="Env of rows whose env_config has no name (a row's own name wins, as in ms-swift).",
)
@click.option(
    "--build/--no-build",
    default=True,
    show_default=True,
    help="Also build each row's env, as ms-swift will: catches configs that fit the schema but "
    "fail at construction (FrozenLake: no solvable map). --no-build checks schemas only.",
)
@json_option
def validate(dataset: Path, gym_env: str | None, build: bool, as_json: bool) -> None:
    """Check every row's env_config in DATASET (JSONL; '-' reads stdin) against its env's schema.

    Reports each bad row by line number with the field and the reason, then a summary per env.
    Exits 1 if any row is bad (or the file has no rows), 0 if all are valid.
    """
    from ..registry import default_registry

    rows: Counter[str] = Counter()
    bad: Counter[str] = Counter()
    malformed = 0
    problems: list[dict[str, Any]] = []
    omitted = 0
    out = stdout()
    shown_envs: set[str] = set()  # envs whose own problem (a load error) is printed
    size = _size(dataset)
    name = "stdin" if str(dataset) == STDIN else dataset.name
    with RowChecker(default_registry(), gym_env, build) as checker, progress_bar(None) as bar:
        task = bar.add_task(f"validating {name}", total=size or None)
        for line in read_jsonl(dataset):
            bar.update(task, completed=line.end)
            if line.row is None:
                malformed += 1
                found: list[dict[str, Any]] = [
                    {"line": line.number, "env": None, "reason": line.error}
                ]
                if not as_json:
                    out.print(Text.assemble((f"line {line.number}: ", "bold red"), str(line.error)))
            else:
                check = checker.check_row(line.row)
                rows[check.env] += 1
                if check.ok:
                    continue
                bad[check.env] += 1
                found = _problem_dicts(line.number, check)
                if check.of_env and check.env in shown_envs:
                    pass  # printed at the env's first row
                elif not as_json:
                    head = f"line {line.number} ({check.env}): "
                    for problem in check.problems:
                        out.print(Text.assemble((head, "bold red"), str(problem)))
                    if check.omitted:
                        out.print(Text.assemble((head, "bold red"), found[-1]["reason"]))
                    if check.of_env:
                        shown_envs.add(check.env)
                        same = f"  (the same for every row of env {check.env!r}: not repeated)"
                        out.print(visible.rich(same))
            if as_json:
                room = MAX_JSON_PROBLEMS - len(problems)
                problems.extend(found[: max(room, 0)])
                omitted += max(len(found) - max(room, 0), 0)
    total = sum(rows.values()) + malformed
    failed = sum(bad.values()) + malformed
    if as_json:
        print_json(
            {
                "file": str(dataset),
                "rows": total,
                "bad_rows": failed,
                "malformed_lines": malformed,
                "valid": failed == 0 and total > 0,
                "envs": {env: {"rows": rows[env], "bad": bad[env]} for env in sorted(rows)},
                "problems": problems,
                "problems_omitted": omitted,
            }
        )
    else:
        _print_summary(rows, bad, malformed, total, failed)
    raise SystemExit(EXIT_PROBLEMS if failed or not total else EXIT_OK)


def _print_summary(
    rows: Counter[str], bad: Counter[str], malformed: int, total: int, failed: int
) -> None:
    out = stdout()
    if rows:
        table = Table("env", "rows", "valid", "bad", title="rows per env", title_justify="left")
        for env in sorted(rows):
            counts = (rows[env], rows[env] - bad[env], bad[env])
            table.add_row(*cells(env, *counts), style="red" if bad[env] else "")
        out.print(table)
    if malformed:
        out.print(f"lines that are not a JSON object: {malformed}")
    if not total:
        stderr().print("[bold red]no rows:[/] the file holds no JSON lines")
    elif failed:
        out.print(f"[bold red]FAILED:[/] {failed} of {total} rows are bad")
    else:
        out.print(f"[bold green]OK:[/] all {total} rows are valid")
