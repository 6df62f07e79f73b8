"""Install hints in messages match how the README installs: from a clone (`./core[extra]`), or
the extra's own packages, exactly as core/pyproject.toml lists them; and no hint anywhere in the
repository names a swift-gym distribution by a PyPI name, since none is published (whoever
registered the name later would receive those installs)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from cli_runner import run

ROOT = Path(__file__).resolve().parents[1]
DOCS = "\n".join(
    path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *ROOT.glob("docs/**/*.md")]
)
"""How the README (and the docs site, when there is one) installs swift-gym."""


def test_every_extra_hint_names_the_packages_pyproject_lists() -> None:
    from swift_gym.install_hints import EXTRAS, extra_hint

    pyproject = (ROOT / "core" / "pyproject.toml").read_text()  # tomllib: Python 3.11 on
    section = pyproject.split("[project.optional-dependencies]")[1].split("\n[")[0]
    extras = re.findall(r"^(\w+) = \[(.*)\]", section, re.M)
    assert {name for name, _ in extras} == set(EXTRAS)
    for extra, listed in extras:
        assert EXTRAS[extra].split() == re.findall(r'"([^"]+)"', listed), extra
        assert extra_hint(extra).startswith(f'pip install "./core[{extra}]" in a clone')
    for extra in ("new", "remote", "serve", "agent"):
        assert f'pip install "./core[{extra}]"' in DOCS


def hidden(tmp_path: Path, module: str) -> dict[str, str]:
    """PYTHONPATH where `module` fails to import, as when it is not installed."""
    package = tmp_path / "hide" / module
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(f'raise ImportError("No module named {module!r}")\n')
    return {"PYTHONPATH": str(package.parent)}


def test_new_without_cookiecutter_says_how_the_readme_installs_it(tmp_path: Path) -> None:
    result = run("new", "maze", "-o", str(tmp_path), env=hidden(tmp_path, "cookiecutter"))
    assert result.returncode == 2
    assert result.stderr == (
        'error: swift-gym new needs cookiecutter: pip install "./core[new]" in a clone of '
        'swift-gym, or pip install "cookiecutter>=2.6"\n'
    )


def test_openenv_without_websockets_says_how_the_readme_installs_it(tmp_path: Path) -> None:
    result = run(
        "play", "openenv", "--seed", "0", "--set", "base_url=http://127.0.0.1:9",
        stdin="", env=hidden(tmp_path, "websockets"),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        'the openenv env needs the websockets package: pip install "./core[remote]" in a clone '
        'of swift-gym, or pip install "websockets>=15"'
    ) in " ".join(result.stdout.split())


def test_no_env_installed_says_how_the_readme_installs_one() -> None:
    result = run("list", env={"SWIFT_GYM_LOAD_PLUGINS": ""})
    assert result.returncode == 0, result.stderr
    assert "pip install ./core ./plugins/frozen_lake" in result.stdout
    unknown = run("info", "frozen_lake", env={"SWIFT_GYM_LOAD_PLUGINS": ""})
    assert unknown.returncode == 2
    hint = "e.g. FrozenLake from a clone of swift-gym: pip install ./core ./plugins/frozen_lake"
    assert hint in " ".join(unknown.stderr.split())


_PIP = "pip install"
_BY_NAME = [
    # an extra of a distribution named swift-gym (or swift_gym), anywhere on the line
    re.compile(r"(?<![\w./~-])[\"']?swift[-_]gym(?:[-_][\w-]+)?\["),
    # a swift-gym distribution as the first thing installed, after any options
    re.compile(r"pip install(?:\s+-\S+)*\s+[\"'`]?swift[-_]gym(?:[-_][\w-]+)?(?=[\"'`\s]|$)"),
]
_TEXT = (".py", ".md", ".sh", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml", ".json", ".html")


def test_no_install_hint_names_a_distribution_that_is_not_on_pypi() -> None:
    """Every `pip install` the code prints or the docs show installs from what exists: the
    clone's paths (`./core[ray]`, `./plugins/frozen_lake`) or real PyPI packages."""
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in listed:
        path = ROOT / name
        if not name.endswith(_TEXT) or path.name == Path(__file__).name or not path.is_file():
            continue
        for number, line in enumerate(path.read_text("utf-8", "replace").splitlines(), 1):
            if _PIP in line and any(pattern.search(line) for pattern in _BY_NAME):
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)
