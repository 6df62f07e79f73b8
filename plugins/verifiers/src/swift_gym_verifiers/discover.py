"""Which verifiers 0.4 environments are installed, found without importing any of them.

verifiers 0.4 has no registry or entry point for environments: a taskset id names an
installed package that exports its `Taskset` subclass through `__all__`
(`verifiers.load_environment` imports it by that name). So an environment is found here by
reading metadata and source text only: every installed distribution that requires
`verifiers`, each of whose top-level packages has an `__init__.py` whose `__all__` (read with
`ast`, never run) names a `...Taskset`; and verifiers' own built-in tasksets
(`verifiers/v1/tasksets/<id>`), listed when the libraries each one imports are installed.
Nothing found here is imported until an episode of it starts.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

ID = re.compile(r"[a-z][a-z0-9_]{0,99}")
"""A taskset id as verifiers imports it: a top-level module name."""

BUILTIN_NEEDS: dict[str, tuple[str, ...]] = {
    "textarena": ("textarena", "nltk"),
    "openenv": ("openenv",),
    "nemo_gym": ("nemo_gym",),
    "harbor": ("harbor",),
}
"""verifiers 0.4.0's built-in tasksets and the modules each imports (its extras)."""

MAX_INIT_BYTES = 256 * 1024
"""An `__init__.py` larger than this is not read (an environment's is a few lines)."""


@dataclass(frozen=True)
class Found:
    """One installed verifiers environment: its taskset id and where it comes from."""

    taskset_id: str
    distribution: str
    version: str
    summary: str


def installed() -> dict[str, Found]:
    """Every installed verifiers environment by taskset id; a distribution's own wins over a
    built-in of the same id, as verifiers' loader prefers the built-in (so it is left out)."""
    found: dict[str, Found] = {}
    for dist in importlib.metadata.distributions():
        if not _requires_verifiers(dist):
            continue
        name = dist.metadata.get("Name") or "?"
        for package in _top_level_packages(dist):
            if package in BUILTIN_NEEDS or package in found:
                continue
            if exports_taskset(dist.locate_file(f"{package}/__init__.py")):
                found[package] = Found(
                    package, name, dist.version, dist.metadata.get("Summary") or ""
                )
    found.update(_builtins())
    return dict(sorted(found.items()))


def exports_taskset(init: object) -> bool:
    """Whether the `__init__.py` at `init` lists a `...Taskset` name in `__all__`, read with
    `ast` (verifiers' convention: a taskset package exports its Taskset subclass there)."""
    try:
        path = Path(str(init))
        if path.stat().st_size > MAX_INIT_BYTES:
            return False
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return False
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                value = node.value
                if isinstance(value, (ast.List, ast.Tuple)):
                    return any(
                        isinstance(item, ast.Constant)
                        and isinstance(item.value, str)
                        and item.value.endswith("Taskset")
                        for item in value.elts
                    )
    return False


def _requires_verifiers(dist: importlib.metadata.Distribution) -> bool:
    for requirement in dist.requires or ():
        head = re.split(r"[\s\[<>=!~;(]", requirement.strip(), maxsplit=1)[0]
        if head.lower().replace("_", "-") == "verifiers":
            return True
    return False


def _top_level_packages(dist: importlib.metadata.Distribution) -> list[str]:
    """The distribution's top-level packages with an `__init__.py`, from its RECORD."""
    packages = []
    for file in dist.files or ():
        parts = file.parts
        if len(parts) == 2 and parts[1] == "__init__.py" and ID.fullmatch(parts[0]):
            packages.append(parts[0])
    return sorted(set(packages))


def _builtins() -> dict[str, Found]:
    spec = importlib.util.find_spec("verifiers")
    if spec is None or not spec.submodule_search_locations:
        return {}
    root = Path(next(iter(spec.submodule_search_locations))) / "v1" / "tasksets"
    try:
        version = importlib.metadata.version("verifiers")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    found = {}
    for taskset_id, needs in BUILTIN_NEEDS.items():
        if not (root / taskset_id / "__init__.py").is_file():
            continue
        if all(importlib.util.find_spec(module) is not None for module in needs):
            summary = f"verifiers' built-in {taskset_id} taskset"
            found[taskset_id] = Found(taskset_id, "verifiers", version, summary)
    return found
