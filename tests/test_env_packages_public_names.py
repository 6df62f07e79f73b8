"""Env packages use only what the core exports on purpose, never its private modules or names.

What an env package may rely on is the front door that docs/writing-envs.md names ("What the
core gives env authors"): a private module (`swift_gym._x`) or name (`from swift_gym.x import
_y`) may change or go in any release, and a package that imports one breaks for its users, not
in the core's tests. Every .py under plugins/ (the cookiecutter template's too, its Jinja
placeholders stood in for) is parsed, never imported, so this runs without the packages installed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLUGINS = REPO / "plugins"
_PLACEHOLDER = re.compile(r"\{\{\s*cookiecutter\.\w+\s*\}\}")
_SKIPPED = {"build", "dist", "__pycache__", "node_modules"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(path: Path) -> list[str]:
    """Each import in `path` of a private `swift_gym` module or name, as `path:line: what`."""
    text = _PLACEHOLDER.sub("Baked", path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import):
            pairs = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            pairs = [(node.module, alias.name) for alias in node.names]
        else:
            continue
        for module, name in pairs:
            parts = module.split(".")
            if parts[0] != "swift_gym":
                continue
            if any(_private(part) for part in parts[1:]):
                found.append(f"{path}:{node.lineno}: private module {module}")
            elif name is not None and _private(name):
                found.append(f"{path}:{node.lineno}: private name {name} of {module}")
    return found


def plugin_sources() -> list[Path]:
    return sorted(
        path
        for path in PLUGINS.rglob("*.py")
        if not any(part.startswith(".") or part in _SKIPPED for part in path.parts)
    )


def test_no_env_package_imports_a_private_name_of_the_core() -> None:
    sources = plugin_sources()
    assert any("template" in path.parts for path in sources)  # the template's files are read
    assert len(sources) > 50, sources
    found = [problem for path in sources for problem in private_imports(path)]
    assert found == [], "\n".join(found)


def test_the_check_finds_each_kind_of_private_import(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import json\n"
        "from swift_gym import Env, __version__\n"
        "from swift_gym._lazy import attach\n"
        "import swift_gym.ms_swift._internal as internal\n"
        "from swift_gym.errors import _MAX_TEXT_CHARS\n"
        "from . import _local\n"
        "def later():\n"
        "    from swift_gym.tools.toolset import _parse_arguments\n",
        encoding="utf-8",
    )
    assert private_imports(planted) == [
        f"{planted}:3: private module swift_gym._lazy",
        f"{planted}:4: private module swift_gym.ms_swift._internal",
        f"{planted}:5: private name _MAX_TEXT_CHARS of swift_gym.errors",
        f"{planted}:8: private name _parse_arguments of swift_gym.tools.toolset",
    ]
