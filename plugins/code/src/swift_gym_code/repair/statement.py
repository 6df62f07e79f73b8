"""The issue a task's episode opens with, written from what its failing tests said: which tests
fail and how (the exception and its message as pytest's summary shows them), never where the
bug is. Messages that name the changed file or a line of it keep only their exception type, and
anything that differs from run to run (memory addresses, the temporary tree's path) is masked,
so the same tests give the same text."""

from __future__ import annotations

import re

MAX_LISTED = 8
MAX_MESSAGE = 240

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_LINE = re.compile(r"\bline \d+|\.py:\d+")


def _clean(message: str, tree: str, changed: str) -> str:
    message = message.replace(tree + "/", "").replace(tree, ".")
    message = _ADDRESS.sub("0x...", message).strip()
    name = changed.rsplit("/", 1)[-1]
    mentions_file = re.search(rf"(?<![\w.]){re.escape(name)}", message) is not None
    if mentions_file or _LINE.search(message):
        kind = message.split(":", 1)[0].strip()
        return kind if re.fullmatch(r"[\w.]+", kind) else "an error"
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    return message


def problem_statement(
    project: str,
    version: str,
    failing: dict[str, str],
    *,
    tree: str,
    changed: str,
) -> str:
    """An issue-style statement for these failing tests (node id -> pytest's one-line reason).

    `tree` is the root the tests ran in and `changed` the file (relative to it) the bug is in:
    both are only used to keep them out of the text."""
    ids = sorted(failing)
    count = len(ids)
    noun = "test fails" if count == 1 else "tests fail"
    lines = [
        f"{count} {noun} in {project} {version}",
        "",
        f"Running {project}'s own test suite, {count} {noun} that should pass:",
        "",
    ]
    for node in ids[:MAX_LISTED]:
        reason = _clean(failing[node], tree, changed) if failing[node] else ""
        lines.append(f"- `{node}`")
        if reason:
            lines.append(f"  {reason}")
    if count > MAX_LISTED:
        lines.append(f"- and {count - MAX_LISTED} more")
    lines += [
        "",
        "The rest of the suite passes. Find the cause in the project's code and fix it so that "
        "these tests pass and the others keep passing. Do not change the tests.",
    ]
    return "\n".join(lines)
