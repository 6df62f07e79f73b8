"""The training commands docs/training.md shows, read as a shell reads them and sized for a CPU.

Each complete command block of the page is a ```bash block after a marker line
`<!-- tested: NAME -->`. `block(NAME)` reads its commands: comment lines dropped, continuation
lines joined, words split as the shell splits them, the `VAR=value` words before a command kept as
its environment. `sized(command, ...)` is that command as a CPU test runs it, changed only in what
the page's list "How these commands are tested" names (`CHANGES_HEADING`): a test that changes a
flag or a variable the list does not name fails, so the page says every way its commands differ
from the ones the tests run. Everything else (a wrong flag, a value ms-swift refuses, a flag
lost) reaches the real run, which then fails.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "training.md"
CHANGES_HEADING = "## How these commands are tested"
MARKER = re.compile(r"^<!-- tested: ([a-z-]+) -->\n\n```bash\n(.*?)^```", re.M | re.S)
FLAG = re.compile(r"^--?[A-Za-z]")
ASSIGNMENT = re.compile(r"^([A-Z_][A-Z0-9_]*)=(.*)$", re.S)
BLOCKS = {
    "colocate": "tests/swift/test_training.py",
    "server-rollout": "tests/vllm/rollout_server.py",
    "server-trainer": "tests/swift/test_training.py",
    "tools": "tests/swift/test_tool_training.py",
    "agent": "tests/swift/test_agent_training.py",
    "mixed": "tests/swift/test_training_mixed.py",
}
"""Each block of the page and the test module that runs it (or, for the server-mode trainer,
which needs GPUs, checks it with ms-swift's own argument parser)."""


@dataclass(frozen=True)
class Command:
    """One command of a block: its environment (`VAR=value` before it) and its words."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def program(self) -> tuple[str, ...]:
        """The words before the first flag: `("swift", "rlhf")`, `("swift-gym", "dataset")`."""
        words = []
        for word in self.argv:
            if FLAG.match(word):
                break
            words.append(word)
        return tuple(words)

    def flags(self) -> list[tuple[str, list[str]]]:
        """(flag, its values) in order; the values are the words up to the next flag."""
        found: list[tuple[str, list[str]]] = []
        for word in self.argv[len(self.program) :]:
            if FLAG.match(word):
                found.append((word, []))
            else:
                found[-1][1].append(word)
        return found

    def value(self, flag: str) -> list[str] | None:
        """The values of `flag` (its last occurrence), or None when it is absent."""
        values = [words for name, words in self.flags() if name == flag]
        return values[-1] if values else None


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def blocks(text: str | None = None) -> dict[str, list[Command]]:
    """Every marked block of the page, by name."""
    found: dict[str, list[Command]] = {}
    for match in MARKER.finditer(page_text() if text is None else text):
        name, body = match.groups()
        assert name not in found, f"docs/training.md: two blocks marked {name!r}"
        found[name] = parse(body)
    return found


def block(name: str) -> list[Command]:
    """The commands of the page's block `name`."""
    found = blocks()
    assert name in found, f"docs/training.md has no block marked `<!-- tested: {name} -->`"
    return found[name]


def command(name: str, *program: str) -> Command:
    """The one command of block `name` that runs `program` ("swift", "rlhf"; "swift-gym",
    "report": the words it starts with)."""
    found = [cmd for cmd in block(name) if cmd.program[: len(program)] == program]
    assert len(found) == 1, f"docs/training.md's block {name!r}: {len(found)} {program} commands"
    return found[0]


def parse(body: str) -> list[Command]:
    """A bash block's commands, as the shell reads them (no pipes, no `&&`: one command a line)."""
    lines = [line for line in body.splitlines() if not line.lstrip().startswith("#")]
    commands = []
    for line in "\n".join(lines).replace("\\\n", " ").splitlines():
        words = shlex.split(line)
        env = {}
        while words and (assigned := ASSIGNMENT.match(words[0])):
            env[assigned.group(1)] = assigned.group(2)
            words.pop(0)
        if words:
            commands.append(Command(tuple(words), env))
    return commands


def changeable(text: str | None = None) -> set[str]:
    """The flags and variables the page's list says a test may change: every `--flag`, `-f`
    and `VARIABLE` written as code in its section."""
    text = page_text() if text is None else text
    assert CHANGES_HEADING in text, f"docs/training.md has no section {CHANGES_HEADING!r}"
    section = text.split(CHANGES_HEADING, 1)[1].split("\n## ", 1)[0]
    spans = re.findall(r"`([^`]+)`", section)
    return {
        word
        for span in spans
        for word in span.split()
        if re.fullmatch(r"--?[a-z][a-z_]*|[A-Z][A-Z0-9_]+", word)
    }


def sized(
    command: Command,
    *,
    flags: Mapping[str, Sequence[str] | None] = {},
    paths: Mapping[str, str] = {},
    drop_env: Sequence[str] = (),
    allowed: set[str] | None = None,
) -> Command:
    """`command` as a CPU test runs it: each of `flags` set to its values (put last when the page
    lacks it) or, for None, dropped; each word or variable value equal to a key of `paths` (a
    file or folder the page names) replaced by its value; the variables `drop_env` removed.
    Every flag and variable changed must be one the page's list names."""
    allowed = changeable() if allowed is None else allowed
    unnamed = sorted((set(flags) | set(drop_env)) - allowed)
    assert not unnamed, (
        f"a test changes {', '.join(unnamed)}, which docs/training.md's "
        f"{CHANGES_HEADING!r} does not name: name it there (and why), or run it as the page has it"
    )
    words = list(command.program)
    done = set()
    for flag, values in command.flags():
        if flag in flags:
            if flag in done or flags[flag] is None:
                continue
            done.add(flag)
            values = list(flags[flag] or ())
        words += [flag, *values]
    for flag, values in flags.items():
        if flag not in done and values is not None:
            words += [flag, *values]
    env = {
        name: paths.get(value, value) for name, value in command.env.items() if name not in drop_env
    }
    return Command(tuple(paths.get(word, word) for word in words), env)
