""".ci/timings.py: CI's closing table, read from tox's own output, against docs/development.md's
budgets."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def timings():
    """.ci/timings.py, loaded from its path (.ci is no package)."""
    spec = importlib.util.spec_from_file_location("ci_timings", REPO / ".ci" / "timings.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


# the shape of a `tox -p 2` log: each env's output when it ends, then tox's closing lines
LOG = """\
lint: OK \u2714 in 2.8 seconds
lint: commands[0]> ruff check .
All checks passed!
swift: OK \u2714 in 20 minutes 5.5 seconds
swift: venv> /usr/bin/uv venv -p python3 /repo/.tox/swift
swift: commands_pre[0]> uv pip install --quiet torch==2.13.0
swift: commands_pre[1]> uv pip install --quiet ms-swift==4.6.0 msgspec
swift: commands[0]> pytest tests/swift
swift: commands[1]> python benchmarks/run.py --quick
ray: FAIL \u2716 in 1 minute 35 seconds
ray: commands_pre[0]> uv pip install --quiet ray==2.60.0
ray: commands[0]> pytest tests/ray
  lint: OK (2.80=setup[0.30]+cmd[1.50,1.00] seconds)
  swift: OK (1205.50=setup[5.50]+cmd[20.00,30.00,1000.00,150.00] seconds)
  ray: FAIL code 1 (95.00=setup[5.00]+cmd[10.00,80.00] seconds)
  evaluation failed :( (1301.25 seconds)
"""


def test_each_env_is_split_into_install_and_tests(timings) -> None:
    envs, wall = timings.read(LOG)
    assert [(e.name, e.outcome) for e in envs] == [("lint", "OK"), ("swift", "OK"), ("ray", "FAIL")]
    lint, swift, ray = envs
    assert (lint.install, lint.tests) == (0.3, 2.5)  # no commands_pre: setup only
    assert (swift.install, swift.tests) == (55.5, 1150.0)  # setup + 2 commands_pre; 2 commands
    assert (ray.install, ray.tests) == (15.0, 80.0)
    assert wall == 1301.25


def test_the_table_marks_what_ran_over_its_budget(timings) -> None:
    envs, wall = timings.read(LOG)
    rows = {line.split("|")[1].strip(): line for line in timings.table(envs, wall).splitlines()}
    assert "over budget" in rows["`swift`"]  # 1206 s against 1080
    assert "over budget" in rows["`ray`"]  # 95 s against 60: a failed env is timed too
    assert "over budget" not in rows["`lint`"]  # 3 s against 30
    assert "| 1301 |" in rows["whole tox run"] and "over budget" not in rows["whole tox run"]


def test_an_env_without_a_budget_says_so(timings) -> None:
    envs, _ = timings.read("  bench: OK (10.00=setup[1.00]+cmd[9.00] seconds)\n")
    assert envs[0].budget is None
    assert "| none |" in timings.table(envs, None)


def test_the_budgets_are_the_ones_docs_development_md_gives(timings) -> None:
    page = (REPO / "docs" / "development.md").read_text()
    table = page.split("<!-- budgets:", 1)[1].split("\n\n", 1)[0]
    rows = dict(re.findall(r"^\| (`?[\w ]+`?) \| (\d+) \|$", table, re.M))
    whole = rows.pop("whole run")
    assert {name.strip("`"): int(seconds) for name, seconds in rows.items()} == timings.BUDGETS
    assert int(whole) == timings.TOTAL_BUDGET


def test_every_env_ci_runs_has_a_budget(timings) -> None:
    tox_ini = (REPO / "tox.ini").read_text()
    env_list = re.search(r"^env_list = (.+)$", tox_ini, re.M)
    assert env_list
    assert {name.strip() for name in env_list.group(1).split(",")} == set(timings.BUDGETS)
