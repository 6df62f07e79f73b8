"""What an env's class says of itself, read from the source without importing anything: the
first line of its docstring (its description) and literals in its body (`tool_use = "opt-in"`).
Listing envs imports none (a broken or slow package costs nothing until used), and an entry
point (`name = "module:Class"`) has no room for either.

The class is looked up in the module the target names, or, for a package whose `__init__` takes
it from a submodule (`from .env import Class`, or lazily: `lazy.attach` and an `_EXPORTS =
{"Class": "submodule"}` literal), in that submodule. Only the class's own body is read, not
its bases'. Best effort: None when the source cannot be found, read or parsed.
"""

from __future__ import annotations

import ast
import functools
from importlib.util import find_spec
from pathlib import Path

_MAX_SOURCE_BYTES = 1_000_000
"""A larger module is not read for a description."""


def docstring_line(target: str) -> str | None:
    """The first line of the docstring of the class `target` ("module:Class") names."""
    node = _class_node(target)
    doc = ast.get_docstring(node) if node is not None else None
    return doc.strip().splitlines()[0].strip() if doc and doc.strip() else None


def class_literal(target: str, attribute: str) -> str | None:
    """The string the body of the class `target` names assigns to `attribute` (`tool_use =
    "opt-in"`, or annotated: `tool_use: ClassVar[str] = "opt-in"`), if it does."""
    node = _class_node(target)
    for statement in node.body if node is not None else ():
        if isinstance(statement, ast.Assign):
            names = [t.id for t in statement.targets if isinstance(t, ast.Name)]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names = [statement.target.id]
        else:
            continue
        value = statement.value
        if attribute in names and isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


@functools.cache
def _class_node(target: str) -> ast.ClassDef | None:
    """The class `target` names, as parsed from its module (one parse per target)."""
    module, _, name = target.partition(":")
    path = _source(module)
    tree = _parse(path) if path else None
    if tree is None or not name:
        return None
    found = _class_def(tree, name)
    if found is None and path is not None and path.name == "__init__.py":
        submodule = _exports(tree).get(name)
        if submodule:
            sub_tree = _parse(_in_package(path.parent, submodule))
            found = _class_def(sub_tree, name) if sub_tree else None
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


def _class_def(tree: ast.Module, name: str) -> ast.ClassDef | None:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    return None


def _exports(tree: ast.Module) -> dict[str, str]:
    """Where a package's `__init__` gets its names: a module-level `_EXPORTS = {"Name":
    "submodule", ...}` literal (lazy exports), and its `from .submodule import Name` lines."""
    found = {
        (alias.asname or alias.name): node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
        for alias in node.names
    }
    return {**found, **_lazy_exports(tree)}


def _lazy_exports(tree: ast.Module) -> dict[str, str]:
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
