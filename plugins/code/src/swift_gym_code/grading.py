"""Grade an answer in the sandbox: the hidden tests (the reward), or the prompt's examples (the
feedback), each one run of `swift_gym.sandbox.run` under the operator's limits.

The answer's code runs only there, inside `harness`; this process reads the run's reports (lines
that begin with the run's secret) and turns them into a `Verdict` a reviewer can read.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from swift_gym import printable
from swift_gym.sandbox import RunResult, SandboxLimits, run

from .answers import program
from .examples import Example
from .harness import fill
from .problems import Problem

TAIL = 1500
"""Characters kept of an error, a traceback or the answer's output in `info`."""


@dataclass
class Verdict:
    """What one run found. `stage`: passed, assertion (a hidden test's assert failed), error
    (an exception while the tests ran), syntax, load (the module raised), missing (no such
    function), limit (a sandbox limit ended the run), crashed (no report: the process exited
    early), or for an examples run, examples."""

    stage: str
    error: str = ""
    assertion: str | None = None
    limit: str = ""
    examples: list[dict[str, Any]] = field(default_factory=list)
    output: str = ""

    @property
    def passed(self) -> bool:
        return self.stage == "passed"


def _reports(result: RunResult, secret: str) -> list[dict[str, Any]]:
    found = []
    for line in result.stdout.splitlines():
        if line.startswith(secret):
            try:
                report = json.loads(line[len(secret) :])
            except ValueError:
                continue
            if isinstance(report, dict) and isinstance(report.get("stage"), str):
                found.append(report)
    return found


def _output(result: RunResult, secret: str) -> str:
    """What the answer itself printed (reports left out), its tail, bounded and printable."""
    kept = [line for line in result.stdout.splitlines() if not line.startswith(secret)]
    text = "\n".join(kept).strip("\n")
    if result.stderr.strip():
        text += ("\n" if text else "") + "stderr: " + result.stderr.strip("\n")
    return bounded(text) if text else ""


def bounded(text: str, limit: int = TAIL) -> str:
    """The tail of `text` (at most `limit` characters), its lines kept, control characters and
    escape sequences shown as escapes."""
    text = text if len(text) <= limit else "..." + text[-limit:]
    return "\n".join(printable(line, limit=limit) for line in text.split("\n"))


def _text(value: Any) -> str:
    return bounded(str(value)) if value else ""


async def run_tests(problem: Problem, code: str, limits: SandboxLimits) -> Verdict:
    """Run the hidden tests against `code`; `Verdict.passed` is the reward."""
    secret = secrets.token_hex(16)
    source = fill(
        secret=secret,
        answer=program(problem.prompt, code, problem.entry_point),
        prompt=problem.prompt,
        tests=problem.test,
        entry_point=problem.entry_point,
        examples=None,
    )
    result = await run(source, limits)
    reports = _reports(result, secret)
    final = reports[-1] if reports else None
    output = _output(result, secret)
    if final is None:
        return _no_report(result, output)
    assertion = final.get("assertion")
    return Verdict(
        stage=final["stage"],
        error=_text(final.get("error")),
        assertion=printable(assertion, limit=300) if isinstance(assertion, str) else None,
        output=output,
    )


def _no_report(result: RunResult, output: str) -> Verdict:
    if result.limit:
        return Verdict("limit", limit=result.limit, error=f"stopped by the {result.limit} limit")
    said = f"the process ended with exit code {result.exit_code} before any test ran to its end"
    return Verdict("crashed", error=said, output=output)


async def run_examples(
    problem: Problem, code: str, examples: tuple[Example, ...], limits: SandboxLimits
) -> Verdict:
    """Run the prompt's `examples` against `code`: each one's result in `Verdict.examples`
    (`call`, `expected`, `passed`, and `got` or `error`; an example cut off by a limit says
    so). Nothing of the hidden tests is in it."""
    secret = secrets.token_hex(16)
    source = fill(
        secret=secret,
        answer=program(problem.prompt, code, problem.entry_point),
        prompt="",
        tests="",
        entry_point=problem.entry_point,
        examples=[(example.call, example.expected) for example in examples],
    )
    result = await run(source, limits)
    reports = _reports(result, secret)
    output = _output(result, secret)
    found: dict[int, dict[str, Any]] = {}
    running = None
    for report in reports:
        index = report.get("index")
        if not isinstance(index, int) or not 0 <= index < len(examples):
            continue
        if report["stage"] == "example_started":
            running = index
        elif report["stage"] == "example":
            running = None
            found[index] = report
    results = []
    for index, example in enumerate(examples):
        entry: dict[str, Any] = {"call": example.call, "expected": example.expected}
        report = found.get(index)
        if report is not None:
            entry["passed"] = report.get("passed") is True
            for key in ("got", "error"):
                if isinstance(report.get(key), str):
                    entry[key] = printable(report[key], limit=300)
        elif index == running and result.limit:
            entry["passed"] = False
            entry["error"] = f"stopped by the {result.limit} limit"
        else:
            continue
        results.append(entry)
    done = any(report["stage"] == "examples_done" for report in reports)
    last = reports[-1] if reports else None
    if last is not None and last["stage"] in ("syntax", "load", "missing"):
        return Verdict(last["stage"], error=_text(last.get("error")), output=output)
    if not done and not results:
        return _no_report(result, output)
    limit = result.limit if not done else ""
    return Verdict("examples", examples=results, limit=limit, output=output)
