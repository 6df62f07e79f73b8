"""Install hints in messages match how the README installs: from a clone (`./core[extra]`), or
the extra's own packages, exactly as core/pyproject.toml lists them."""

from __future__ import annotations

import re
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
    for extra in ("new", "remote", "serve"):
        listed = re.search(rf"^{extra} = \[(.*)\]", pyproject, re.M)
        assert listed, extra
        assert EXTRAS[extra].split() == re.findall(r'"([^"]+)"', listed[1]), extra
        assert f'pip install "./core[{extra}]"' in DOCS
        assert extra_hint(extra).startswith(f'pip install "./core[{extra}]" in a clone')


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
    assert "pip install ./plugins/frozen_lake" in result.stdout
    unknown = run("info", "frozen_lake", env={"SWIFT_GYM_LOAD_PLUGINS": ""})
    assert unknown.returncode == 2
    hint = "e.g. FrozenLake from a clone of swift-gym: pip install ./plugins/frozen_lake"
    assert hint in " ".join(unknown.stderr.split())
