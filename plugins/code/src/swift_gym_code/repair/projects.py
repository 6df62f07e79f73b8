"""The pinned projects code.repair's bugs are made in: each a pure-Python sdist from PyPI that
carries its own test suite, whose tests need only the standard library and pytest and run in a
few seconds. A pin names the exact sdist (filename and sha256) so a task always means the same
code, and the test command is written relative to the project's root so it means the same thing
on the host and inside the sandbox."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

# Every test command starts with this: pytest's quiet form with one line per test in the
# short summary (-rA: "PASSED <node id>" is how outcomes are read), no cache written into the
# tree, the project's own addopts left out (they ask for coverage or doctest plugins), and no
# third-party pytest plugins loaded from whatever environment runs it (see TEST_ENV).
PYTEST = (
    "python",
    "-m",
    "pytest",
    "-q",
    "-rA",
    "--tb=short",
    "-p",
    "no:cacheprovider",
    "-o",
    "addopts=",
    "-o",
    "console_output_style=classic",
)

# Variables a test command runs with, on the host and in the sandbox: a fixed hash seed (set
# and dict orders in messages stay the same from run to run), no bytecode written into the work
# tree, and no plugin autoloading.
TEST_ENV = {
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    "COLUMNS": "200",
}


@dataclass(frozen=True)
class Project:
    """One pinned sdist, how its tests are run, and which of its files bugs may go into."""

    name: str
    version: str
    sdist: str
    sha256: str
    test_args: tuple[str, ...]
    sources: tuple[str, ...]
    """Files (relative to the project's root) whose functions may be mutated: never tests."""

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def test_command(self) -> str:
        """The shell command, run from the project's root, that runs the whole suite."""
        env = " ".join(f"{k}={v}" for k, v in TEST_ENV.items())
        return f"{env} {shlex.join(PYTEST + self.test_args)}"


PROJECTS: tuple[Project, ...] = (
    Project(
        name="boltons",
        version="26.2.0",
        sdist="boltons-26.2.0.tar.gz",
        sha256="d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c",
        # socketutils' tests open sockets; the sandbox gives none, so they are left out and the
        # module is not mutated. (Deselected by -k: boltons' conftest answers
        # pytest_ignore_collect itself, which overrides --ignore.)
        test_args=("tests", "-k", "not test_socketutils"),
        sources=tuple(
            f"boltons/{m}.py"
            for m in [
                "cacheutils",
                "dictutils",
                "excutils",
                "fileutils",
                "formatutils",
                "funcutils",
                "iterutils",
                "jsonutils",
                "listutils",
                "mathutils",
                "namedutils",
                "queueutils",
                "setutils",
                "statsutils",
                "strutils",
                "tableutils",
                "tbutils",
                "timeutils",
                "typeutils",
                "urlutils",
            ]
        ),
    ),
    Project(
        name="cachetools",
        version="8.0.3",
        sdist="cachetools-8.0.3.tar.gz",
        sha256="79245d0d90464e29355f13658cd769e57d98ed06242d3c6fbd71796ca0938ef9",
        test_args=("-o", "pythonpath=src", "tests"),
        sources=(
            "src/cachetools/__init__.py",
            "src/cachetools/_cached.py",
            "src/cachetools/_cachedmethod.py",
            "src/cachetools/func.py",
            "src/cachetools/keys.py",
        ),
    ),
    Project(
        name="idna",
        version="3.21",
        sdist="idna-3.21.tar.gz",
        sha256="13c8b14853c5c336eaab526f3390817e9c8fcd8fa175abdd1a7480a5c94f99cb",
        # Left out: the property tests need hypothesis; the UTS 46 conformance file is thousands
        # of cases (each task would list them all); the fuzz and concurrency files are slow.
        test_args=(
            "tests",
            "--ignore=tests/test_idna_properties.py",
            "--ignore=tests/test_idna_uts46.py",
            "--ignore=tests/test_idna_concurrency.py",
            "--ignore=tests/test_idna_fuzz_targets.py",
        ),
        sources=("idna/core.py", "idna/codec.py", "idna/intranges.py", "idna/compat.py"),
    ),
    Project(
        name="six",
        version="1.17.0",
        sdist="six-1.17.0.tar.gz",
        sha256="ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81",
        test_args=("test_six.py",),
        sources=("six.py",),
    ),
    Project(
        name="toolz",
        version="1.2.0",
        sdist="toolz-1.2.0.tar.gz",
        sha256="9667a038e9d6ecba37995e26cb2f59ec6420b6ad8dd9677de59db9b956b08490",
        test_args=("toolz/tests",),
        sources=(
            "toolz/dicttoolz.py",
            "toolz/functoolz.py",
            "toolz/itertoolz.py",
            "toolz/recipes.py",
            "toolz/utils.py",
        ),
    ),
)


def project_named(name: str) -> Project:
    """The pinned project of that name; a ValueError listing the names otherwise."""
    for project in PROJECTS:
        if project.name == name:
            return project
    names = ", ".join(p.name for p in PROJECTS)
    raise ValueError(f"no code.repair project named {name!r}; the projects are: {names}")
