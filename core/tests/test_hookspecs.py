"""Every hook is documented in hookspecs.py and on the docs' hooks page, and exercised by a test."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from swift_gym import hookspecs

REPO = Path(__file__).resolve().parents[2]
HOOKS = [
    name
    for name, value in vars(hookspecs).items()
    if name.startswith("swift_gym_") and callable(value)
]


def test_there_are_hooks() -> None:
    assert "swift_gym_register_envs" in HOOKS


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_a_docstring(hook: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, hook))
    assert doc and len(doc) > 40


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_on_the_hooks_page(hook: str) -> None:
    """In the page's own words: its generated part (from hookspecs.py) is not in the source."""
    page = (REPO / "docs" / "hooks.md").read_text(encoding="utf-8")
    assert f"`{hook}(register)`" in page.split("## Every hook", 1)[0]


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_used_by_a_test(hook: str) -> None:
    tests = [path for path in REPO.glob("*/tests/test_*.py") if path.name != "test_hookspecs.py"]
    tests += [path for path in REPO.glob("tests/test_*.py")]
    assert any(f"def {hook}(" in path.read_text() for path in tests)
