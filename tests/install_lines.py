"""Every `pip install` the project prints or shows, read as the command a user would type.

Where they are: the messages of install_hints.py (called, so a hint is the exact text printed),
every string literal and comment of the code that runs (core/src, plugins/*/src), and what a
user reads: README.md, docs/**/*.md, examples/ (READMEs and scripts), plugins/*/README*.

A command is read from code as a shell reads it (a code block, a `code span`, a script line): up
to `#`, `&&`, `;`, `|` or its end. In prose (a message, a comment) it also ends before the first
plain word that more words follow, so `pip install "./core[serve]" in a clone` is one argument
and `... ./plugins/frozen_lake vllm.` three. `pip install` with no argument is a mention.
"""

from __future__ import annotations

import ast
import re
import subprocess
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PIP_INSTALL = re.compile(r"\bpip3? install\b")
SPAN = re.compile(r"(`+)(.+?)\1", re.S)
TOKEN = re.compile(r"""\s*(?:"([^"]*)"|'([^']*)'|([^\s"'#;&|()`]+)|(\S))""")
"""A double- or single-quoted argument, a bare one, or a character that ends the command."""
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Arg:
    text: str
    quoted: bool


@dataclass(frozen=True)
class InstallLine:
    """One `pip install` with its arguments, and where it was found (path:line)."""

    where: str
    args: tuple[Arg, ...]

    @property
    def installs(self) -> bool:
        """Whether it names something to install (`pip install` alone is a mention)."""
        return any(not arg.text.startswith("-") for arg in self.args)

    @property
    def command(self) -> str:
        shown = (f'"{arg.text}"' if arg.quoted else arg.text for arg in self.args)
        return "pip install " + " ".join(shown)


def _args(rest: str, prose: bool) -> tuple[Arg, ...]:
    """The arguments of the command `rest` follows `pip install` in."""
    found: list[Arg] = []
    tokens = [match.groups() for match in TOKEN.finditer(rest)]
    tokens = [token for token in tokens if any(part is not None for part in token)]
    for index, (double, single, bare, end) in enumerate(tokens):
        if end is not None:
            break
        if bare is None:
            found.append(Arg(double if double is not None else single, True))
            continue
        word = bare.rstrip(".,:")
        if prose and not re.search(r"[/\[<>=~!]|^-", word):
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if word == bare and following is not None and following[3] is None:
                break  # a plain word more words follow: the sentence goes on, not the command
        if word:
            found.append(Arg(word, False))
        if word != bare:
            break  # `vllm.`: the command ends with the sentence
    return tuple(found)


def _commands(text: str, prose: bool) -> Iterator[tuple[int, tuple[Arg, ...]]]:
    """(offset, arguments) of each `pip install` in `text` (a mention has none to install)."""
    for match in PIP_INSTALL.finditer(text):
        yield match.start(), _args(text[match.end() :], prose)


def _mixed(text: str) -> Iterator[tuple[int, tuple[Arg, ...]]]:
    """Prose with `code spans`: each span read as code, the rest as prose."""
    spans = list(SPAN.finditer(text))
    for span in spans:
        for offset, args in _commands(span.group(2), prose=False):
            yield span.start(2) + offset, args
    prose = SPAN.sub(lambda span: " " * (len(span.group()) - 1) + ";", text)
    yield from _commands(prose, prose=True)


def _markdown(text: str) -> Iterator[tuple[int, tuple[Arg, ...]]]:
    """Code blocks line by line as code; each paragraph (its lines joined) as prose with spans."""
    offset, fenced, paragraph = 0, False, None
    for line in [*text.splitlines(keepends=True), "\n"]:
        if paragraph is not None and (FENCE.match(line) or not line.strip()):
            yield from ((paragraph + at, args) for at, args in _mixed(text[paragraph:offset]))
            paragraph = None
        if FENCE.match(line):
            fenced = not fenced
        elif fenced:
            yield from ((offset + at, args) for at, args in _commands(line, prose=False))
        elif line.strip() and paragraph is None:
            paragraph = offset
        offset += len(line)


def _script(text: str) -> Iterator[tuple[int, tuple[Arg, ...]]]:
    offset = 0
    for line in text.splitlines(keepends=True):
        code, hash_, comment = (
            line.partition("#") if line.lstrip().startswith("#") else (line, "", "")
        )
        yield from ((offset + at, args) for at, args in _commands(code, prose=False))
        if hash_:
            start = offset + len(code) + 1
            yield from ((start + at, args) for at, args in _mixed(comment))
        offset += len(line)


def _python(text: str) -> Iterator[tuple[int, tuple[Arg, ...]]]:
    """Each string literal (adjacent ones joined, as Python joins them; an f-string's fields as
    `{name}`) and each comment, read as prose with code spans."""
    starts = [0, *(match.end() for match in re.finditer("\n", text))]
    tree = ast.parse(text)
    parts = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    for node in ast.walk(tree):
        if id(node) in parts:
            continue  # a piece of an f-string, read with it
        if isinstance(node, ast.JoinedStr):
            string = "".join(
                part.value
                if isinstance(part, ast.Constant)
                else "{" + ast.unparse(part.value) + "}"
                for part in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            string = node.value
        else:
            continue
        for _, args in _mixed(string):
            yield starts[node.lineno - 1], args
    for token in tokenize.generate_tokens(StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            start = starts[token.start[0] - 1] + token.start[1]
            yield from ((start + at, args) for at, args in _mixed(token.string[1:]))


def tracked(*patterns: str) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--", *(f":(glob){pattern}" for pattern in patterns)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(set(listed.stdout.split()))


READERS = {".md": _markdown, ".sh": _script, ".py": _python}
SOURCES = (
    "README.md", "docs/**/*.md", "examples/**", "plugins/*/README*", "core/src/**/*.py",
    "plugins/*/src/**/*.py",
)  # fmt: skip
"""The files read, as git pathspecs (tracked files only: what a clone has)."""


def in_files() -> list[InstallLine]:
    """Every `pip install` of the tracked files a user reads or whose code prints it, mentions
    included."""
    found = []
    for name in tracked(*SOURCES):
        reader = READERS.get(Path(name).suffix)
        if reader is None:
            continue
        text = (REPO / name).read_text(encoding="utf-8")
        if not PIP_INSTALL.search(text):
            continue  # nothing to read (and most modules need no parse)
        for offset, args in reader(text):
            found.append(InstallLine(f"{name}:{text.count(chr(10), 0, offset) + 1}", args))
    return found


def printed() -> list[InstallLine]:
    """Every hint install_hints.py builds, as the messages print it."""
    from swift_gym.install_hints import ENV_PACKAGE_HINT, EXTRAS, extra_hint

    messages = {f"extra_hint({extra!r})": extra_hint(extra) for extra in EXTRAS}
    messages["ENV_PACKAGE_HINT"] = ENV_PACKAGE_HINT
    return [
        InstallLine(f"install_hints.{name}", args)
        for name, message in messages.items()
        for _, args in _commands(message, prose=True)
    ]


def occurrences(name: str) -> int:
    """How many times `pip install` appears in a tracked file, as plain text."""
    return len(PIP_INSTALL.findall((REPO / name).read_text(encoding="utf-8")))
