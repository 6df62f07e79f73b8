"""Where CI's time went: each tox env's wall time, split into install and tests, against its budget.

Reads the log of a `tox -p 2` run (`.ci/run` keeps one) and prints a table. tox ends its run with
one line per env, `  NAME: OK (TOTAL=setup[S]+cmd[C0,C1,...] seconds)`, where the cmd times are
the env's `commands_pre` then its `commands`; the env's own output, printed when it ends, has a
`NAME: commands_pre[i]>` line for each install command. Install is setup (the venv, `deps`) plus
the `commands_pre`; tests are the `commands`. An env over its budget is marked, and so is a run
over the whole budget: the budgets are docs/development.md's, where the table is kept.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

# seconds; docs/development.md lists the same (tests/test_ci_timings.py checks that they agree)
BUDGETS = {
    "lint": 30,
    "swift": 1080,
    "tests": 600,
    "quickstart": 480,
    "vllm": 300,
    "verifiers": 180,
    "collections": 210,
    "openenv": 30,
    "openenv03": 30,
    "gymnasium": 30,
    "reasoning_gym": 150,
    "textarena": 45,
    "ray": 60,
    "code": 90,
}
TOTAL_BUDGET = 1800

SUMMARY = re.compile(
    r"^\s+(?P<env>[\w.-]+): (?P<outcome>OK|FAIL|SKIP)\S*.*?\((?P<total>[\d.]+)"
    r"(?:=setup\[(?P<setup>[\d.]+)\]\+cmd\[(?P<cmds>[\d.,]*)\])? seconds\)"
)
PRE = re.compile(r"^(?P<env>[\w.-]+): commands_pre\[(?P<index>\d+)\]>")
END = re.compile(r"^\s+(?:congratulations :\)|evaluation failed :\() \((?P<total>[\d.]+) seconds\)")


@dataclass
class EnvTime:
    name: str
    outcome: str
    total: float
    install: float
    tests: float

    @property
    def budget(self) -> int | None:
        return BUDGETS.get(self.name)


def read(log: str) -> tuple[list[EnvTime], float | None]:
    """Each env's times, in the order tox reported them, and the whole run's wall time."""
    lines = log.splitlines()
    pre: dict[str, int] = {}  # each env's count of commands_pre, from its own output
    for line in lines:
        if match := PRE.match(line):
            env, index = match["env"], int(match["index"])
            pre[env] = max(pre.get(env, 0), index + 1)
    envs, wall = [], None
    for line in lines:
        if match := SUMMARY.match(line):
            total = float(match["total"])
            setup = float(match["setup"] or 0)
            cmds = [float(cmd) for cmd in (match["cmds"] or "").split(",") if cmd]
            count = pre.get(match["env"], 0)
            install = setup + sum(cmds[:count])
            envs.append(EnvTime(match["env"], match["outcome"], total, install, total - install))
        elif match := END.match(line):
            wall = float(match["total"])
    return envs, wall


def table(envs: list[EnvTime], wall: float | None) -> str:
    """A Markdown table: one row an env, then the run's wall time against the whole budget."""
    lines = [
        "| env | result | wall (s) | install (s) | tests (s) | budget (s) | |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for env in envs:
        over = "**over budget**" if env.budget is not None and env.total > env.budget else ""
        budget = "none" if env.budget is None else str(env.budget)
        lines.append(
            f"| `{env.name}` | {env.outcome} | {env.total:.0f} | {env.install:.0f} "
            f"| {env.tests:.0f} | {budget} | {over} |"
        )
    if wall is not None:
        over = "**over budget**" if wall > TOTAL_BUDGET else ""
        lines.append(f"| whole tox run | | {wall:.0f} | | | {TOTAL_BUDGET} | {over} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python .ci/timings.py TOX_LOG", file=sys.stderr)
        return 2
    envs, wall = read(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))
    if not envs:
        print(f"no tox env summary found in {argv[0]}", file=sys.stderr)
        return 1
    print(table(envs, wall))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
