"""`swift-gym doctor`: whether this host can sandbox model code, and how it bounds it."""

from __future__ import annotations

import dataclasses

import click
from rich.table import Table

from ..sandbox.host_report import host_report
from .console import cells, print_json, stdout
from .errors import EXIT_OK, EXIT_PROBLEMS
from .options import json_option


@click.command()
@json_option
def doctor(as_json: bool) -> None:
    """Check the sandbox here: bubblewrap, and which mode bounds memory and tasks.

    `cgroup`: each sandbox has a memory and a pids cgroup; `seccomp`: no cgroup can be made
    here, so what no rlimit counts is refused instead (docs/sandbox.md says what each mode
    guarantees). Exits 1 when the sandbox cannot run here, saying what to fix.
    """
    report = host_report()
    if as_json:
        print_json(dataclasses.asdict(report))
    else:
        table = Table(show_header=False, box=None)
        table.add_row(*cells("sandbox", "works" if report.ok else "cannot run here"))
        if not report.ok:
            table.add_row(*cells("problem", report.problem))
        else:
            table.add_row(*cells("bubblewrap", report.bubblewrap))
            table.add_row(*cells("mode", report.detail))
            for limit, enforced in report.enforcement.items():
                table.add_row(*cells(limit, enforced))
            table.add_row(*cells("refused calls", ", ".join(report.refused_calls)))
            table.add_row(*cells("capabilities", "all dropped"))
        stdout().print(table)
    raise SystemExit(EXIT_OK if report.ok else EXIT_PROBLEMS)
