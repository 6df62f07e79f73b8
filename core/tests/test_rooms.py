"""The house's layers: nothing below imports anything above, and the core has no import circle.

Imports are read from the source (every `import`, also inside functions and under
TYPE_CHECKING), so a circle that only type checkers or a late call would walk is found too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import swift_gym

PACKAGE = Path(swift_gym.__file__).parent
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "template" not in p.relative_to(PACKAGE).parts)
"""The package's modules; the env template it ships (cookiecutter files) is no Python code."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The swift_gym modules `path` imports, resolved to absolute names."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
    modules = {module_name(p) for p in SOURCES}
    return {module for module in found if module in modules and module != name}


GRAPH = {module_name(path): imports_of(path) for path in SOURCES}


def test_evaluation_imports_nothing_of_the_command_or_ms_swift() -> None:
    for module, imported in GRAPH.items():
        if module.startswith("swift_gym.evaluation"):
            above = {m for m in imported if m.startswith(("swift_gym.cli", "swift_gym.ms_swift"))}
            assert not above, f"{module} imports {above}"


def test_serving_imports_nothing_of_the_faces_or_the_other_library_parts() -> None:
    above = ("swift_gym.cli", "swift_gym.ms_swift", "swift_gym.evaluation", "swift_gym.testing")
    for module, imported in GRAPH.items():
        if module.startswith("swift_gym.serving"):
            found = {m for m in imported if m.startswith(above)}
            assert not found, f"{module} imports {found}"
    assert "swift_gym.serving.app" in GRAPH  # the package is there, so the check checked it


def test_the_core_imports_no_face_and_no_library_part() -> None:
    faces = (
        "swift_gym.cli",
        "swift_gym.ms_swift",
        "swift_gym.evaluation",
        "swift_gym.testing",
        "swift_gym.serving",
    )
    for path in PACKAGE.glob("*.py"):
        if path.stem not in ("__init__", "__main__", "swift"):  # the package root and two doors
            module = module_name(path)
            above = {m for m in GRAPH[module] if m.startswith(faces)}
            assert not above, f"{module} imports {above}"


def test_no_import_circle_between_hookspecs_rewards_plugins_and_registry() -> None:
    core = {f"swift_gym.{name}" for name in ("hookspecs", "rewards", "plugins", "registry")}
    assert core <= set(GRAPH)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for module in GRAPH[start] & core:
            if module == goal or (module not in seen and reaches(module, goal, seen | {module})):
                return True
        return False

    for module in sorted(core):
        assert not reaches(module, module, {module}), f"{module} imports itself in a circle"


def test_the_reward_registry_is_beside_the_env_registry() -> None:
    from swift_gym import rewards
    from swift_gym.ms_swift import rewards as adapter

    assert set(rewards.BUILTIN_REWARDS) == {"swift_gym_total", "swift_gym_success"}
    assert callable(rewards.collect_rewards)
    assert not hasattr(adapter, "BUILTIN_REWARDS")  # ms_swift/ only adapts: the ORM classes


def test_cli_holds_commands_and_views_only() -> None:
    engine = {"episodes", "runner", "policies", "openai_policy", "stats", "sources"}
    present = {path.stem for path in (PACKAGE / "cli").glob("*.py")}
    assert not engine & present
