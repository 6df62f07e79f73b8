"""An env's own one-line description, the first line of its class's docstring, read from the
source without importing anything: listing envs imports none (a broken or slow package costs
nothing until used), and an entry point (`name = "module:Class"`) has no room for a description.

The class is looked up in the module the target names, or, for a package whose `__init__` loads
its exports lazily (`_lazy.attach` and an `_EXPORTS = {"Class": "submodule"}` literal), in that
submodule. Best effort: None when the source cannot be found, read or parsed.
"""

from __future__ import annotations

import ast
import functools
from importlib.util import find_spec
from pathlib import Path

_MAX_SOURCE_BYTES = 1_000_000
"""A larger module is not read for a description."""


@functools.cache
def docstring_line(target: str) -> str | None:
    """The first line of the docstring of the class `target` ("module:Class") names."""
    module, _, name = target.partition(":")
    path = _source(module)
    tree = _parse(path) if path else None
    if tree is None or not name:
        return None
    found = _class_line(tree, name)
    if found is None and path is not None and path.name == "__init__.py":
        submodule = _exports(tree).get(name)
        if submodule:
            sub_tree = _parse(_in_package(path.parent, submodule))
            found = _class_line(sub_tree, name) if sub_tree else None
    return found


def _source(module: str) -> Path | None:
    """The file of `module`, found without importing it (nor its parent packages)."""
    top, *rest = module.split(".")
    try:
        spec = find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    path = Path(spec.origin)
    for part in rest:
        if path.name != "__init__.py":
            return None
        path = _in_package(path.parent, part)
    return path


def _in_package(directory: Path, name: str) -> Path:
    package = directory / name / "__init__.py"
    return package if package.is_file() else directory / f"{name}.py"


def _parse(path: Path) -> ast.Module | None:
    try:
        if path.stat().st_size > _MAX_SOURCE_BYTES:
            return None
        return ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None


def _class_line(tree: ast.Module, name: str) -> str | None:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            doc = ast.get_docstring(node)
            return doc.strip().splitlines()[0].strip() if doc and doc.strip() else None
    return None


def _exports(tree: ast.Module) -> dict[str, str]:
    """A module-level `_EXPORTS = {"Name": "submodule", ...}` literal, or nothing."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets)
            and isinstance(node.value, ast.Dict)
        ):
            pairs = zip(node.value.keys, node.value.values, strict=True)
            return {
                k.value: v.value
                for k, v in pairs
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
                and isinstance(k.value, str) and isinstance(v.value, str)
            }  # fmt: skip
    return {}
