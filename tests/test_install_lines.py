"""Every `pip install` the project prints or documents names what exists: a package directory of
the clone with the extras it declares, or a requirement of PyPI that is not one of ours (none is
published), quoted where a shell would read it otherwise. tests/collections/test_hints_resolve.py
resolves each one in a fresh venv; these checks read files only (well under a second)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from install_lines import REPO, SOURCES, InstallLine, in_files, occurrences, printed, tracked

OURS = {"swift-gym", "swift-gym-frozen-lake", "swift-gym-gymnasium", "swift-gym-reasoning-gym",
        "swift-gym-textarena", "swift-gym-verifiers"}  # fmt: skip
"""Our distributions: on no index, so a hint installs them from the clone's paths."""
NOT_RUN = {
    ("core/src/swift_gym/cli/new.py", "-e ./swift-gym-ENV_NAME[test]"): "`swift-gym new` bakes it",
    ("core/src/swift_gym/cli/new.py", "-e {baked}[test]"): "`swift-gym new` bakes it",
    ("docs/cli.md", "~/src/swift-gym-maze_walker"): "what `swift-gym new` bakes on the line before",
    ("docs/writing-envs.md", "-e /tmp/x/swift-gym-maze_walker[test]"): "baked on the line before",
    ("plugins/template/README.md", "-e /tmp/x/swift-gym-maze_walker[test]"): "baked just before",
    ("core/src/swift_gym/install_hints.py", "./core[{extra}]"): "checked as printed, per extra",
    ("core/src/swift_gym/install_hints.py", "{packages}"): "checked as printed, per extra",
    ("plugins/verifiers/README.md", "<a verifiers environment package>"): "the reader's choice",
}
"""Commands with a placeholder or a package the line before makes, by file: tests/test_template.py
bakes the template and installs the package with its test extra, as these lines do."""
REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[\w,-]+\])?\s*([<>=!~].*)?$")
SHELL_SPECIAL = set("[]<>*?{}()&;|$`")


def _key(line: InstallLine) -> tuple[str, str]:
    """(its file, its arguments), as NOT_RUN lists it."""
    return line.where.rsplit(":", 1)[0], " ".join(arg.text for arg in line.args)


def _not_run(line: InstallLine) -> str | None:
    return NOT_RUN.get(_key(line))


LINES = [line for line in in_files() + printed() if line.installs]
RUN = [line for line in LINES if _not_run(line) is None]


def test_every_pip_install_in_the_files_is_read() -> None:
    """The reader finds each `pip install` of the files as often as it appears (a string split
    over lines, a code span over two lines, a comment), so none is left unchecked."""
    read = Counter(line.where.rsplit(":", 1)[0] for line in in_files())
    written = {name: occurrences(name) for name in tracked(*SOURCES)}
    assert {name: count for name, count in written.items() if count} == dict(read)
    assert len(RUN) > 50  # the README, the docs, the examples, the messages


def test_every_hint_the_messages_print_is_read() -> None:
    from swift_gym.install_hints import EXTRAS

    commands = {line.command for line in printed()}
    for extra in EXTRAS:
        assert f'pip install "./core[{extra}]"' in commands
    assert "pip install ./core ./plugins/frozen_lake" in commands


def test_what_is_not_run_is_there_and_says_why() -> None:
    found = {_key(line) for line in LINES}
    assert set(NOT_RUN) <= found, set(NOT_RUN) - found


def _declared_extras(package: Path) -> set[str]:
    """The extras a package's pyproject.toml declares (tomllib: Python 3.11 on)."""
    pyproject = (package / "pyproject.toml").read_text(encoding="utf-8")
    section = pyproject.partition("\n[project.optional-dependencies]\n")[2].split("\n[")[0]
    return set(re.findall(r"^([\w-]+)\s*=", section, re.M))


def _ours_required(package: Path) -> set[str]:
    """Which of our distributions a package of the clone requires."""
    pyproject = (package / "pyproject.toml").read_text(encoding="utf-8")
    listed = re.search(r"^dependencies = \[(.*?)\]", pyproject, re.M | re.S)
    names = re.findall(r'"([A-Za-z0-9][\w.-]*)', listed.group(1) if listed else "")
    return {name.lower() for name in names} & OURS


def _name(package: Path) -> str:
    pyproject = (package / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^name = "([^"]+)"', pyproject, re.M).group(1)  # type: ignore[union-attr]


@pytest.mark.parametrize("line", RUN, ids=lambda line: line.where)
def test_each_hint_names_what_exists(line: InstallLine) -> None:
    """Each argument exists; and a package of the clone that needs another of ours (every env
    package needs the core) comes with that one's path, or pip looks for it on PyPI."""
    named, needed = set(), set()
    for arg in line.args:
        if arg.text.startswith("-"):
            assert arg.text in {"-e", "--force-reinstall", "--no-deps"}, line.command
            continue
        if not arg.quoted:
            special = SHELL_SPECIAL & set(arg.text)
            assert not special, f"{line.where}: quote {arg.text} ({''.join(special)}: zsh, bash)"
        path, _, extras = arg.text.partition("[")
        if "/" in path or path.startswith("."):
            package = (REPO / path).resolve()
            assert (package / "pyproject.toml").is_file(), f"{line.where}: no package at {path}"
            wanted = set(filter(None, extras.rstrip("]").split(",")))
            missing = wanted - _declared_extras(package)
            assert not missing, f"{line.where}: {path} has no extra {missing}"
            named.add(_name(package))
            needed |= _ours_required(package)
        else:
            match = REQUIREMENT.match(arg.text)
            assert match, f"{line.where}: {arg.text} is no requirement"
            name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
            assert name not in OURS, f"{line.where}: {name} is on no index; name its path"
    assert needed <= named, f"{line.where}: name the path of {', '.join(needed - named)} too"
