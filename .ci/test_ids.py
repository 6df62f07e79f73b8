"""Compare two runs' tests, env by env: which ran and passed, and which test ids went missing.

Each tox env's pytest writes JUnit XML to `.tox/junit/ENV.xml` (tox.ini). Given the folders of
two runs, this prints each env's counts before and after, every test id that passed before and
does not pass after in any env, and the ids that are new. A change to how tests are laid out
(envs merged, runs shared) must keep every test that ran: this is how a change shows it did.

    python .ci/test_ids.py BEFORE_DIR AFTER_DIR
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

OUTCOMES = ("passed", "skipped", "failed")


def outcomes(path: Path) -> dict[str, str]:
    """Each test id of one JUnit file (`module::name[params]`) and its outcome."""
    found = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        test_id = f"{module}::{case.get('name', '')}"
        if case.find("skipped") is not None:
            found[test_id] = "skipped"
        elif case.find("failure") is not None or case.find("error") is not None:
            found[test_id] = "failed"
        else:
            found[test_id] = "passed"
    return found


def read_run(folder: Path) -> dict[str, dict[str, str]]:
    return {path.stem: outcomes(path) for path in sorted(folder.glob("*.xml"))}


def report(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[str]:
    lines = ["| env | before: passed / skipped / failed | after: passed / skipped / failed |"]
    lines.append("| --- | --- | --- |")
    for env in sorted(set(before) | set(after)):
        counts = []
        for run in (before, after):
            tally = Counter(run.get(env, {}).values())
            counts.append(" / ".join(str(tally[o]) for o in OUTCOMES) if env in run else "-")
        lines.append(f"| {env} | {counts[0]} | {counts[1]} |")
    passed_after = {i for run in after.values() for i, o in run.items() if o == "passed"}
    all_after = {i for run in after.values() for i in run}
    all_before = {i for run in before.values() for i in run}
    totals = [
        sum(o == "passed" for run in r.values() for o in run.values()) for r in (before, after)
    ]
    lines.append(f"\npassed in all: {totals[0]} before, {totals[1]} after")
    lost = sorted(
        (env, test_id)
        for env, run in before.items()
        for test_id, outcome in run.items()
        if outcome == "passed" and test_id not in passed_after
    )
    lines.append(f"passed before, not passing in any env after: {len(lost)}")
    lines += [f"  {env}: {test_id}" for env, test_id in lost]
    new = sorted(all_after - all_before)
    lines.append(f"new test ids: {len(new)}")
    lines += [f"  {test_id}" for test_id in new]
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    before, after = (read_run(Path(folder)) for folder in argv)
    print("\n".join(report(before, after)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
