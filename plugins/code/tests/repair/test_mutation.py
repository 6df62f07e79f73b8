"""Each mutation operator on a small function, and the site list's determinism."""

from __future__ import annotations

import ast
import textwrap

import pytest
from swift_gym_code.repair.mutation import OPERATORS, mutations

SNIPPET = textwrap.dedent(
    '''
    LIMIT = 3  # module level: never mutated


    def window(items, size=2):
        """Docstring: never mutated (size < 10)."""
        out = []
        total = 0
        for i in range(len(items)):
            if i + size <= len(items) and size > 0:
                out.append(items[i : i + size])
            total += 1
        if not out:
            return None
        return out


    class Box:
        def full(self, n):
            seen = max(n, 1)
            return n == seen or False
    '''
).lstrip()


def _by_operator(source: str = SNIPPET) -> dict[str, list[tuple[str, str]]]:
    """operator -> [(the text replaced, its replacement)]"""
    found: dict[str, list[tuple[str, str]]] = {}
    for m in mutations(source, "pkg/mod.py"):
        found.setdefault(m.operator, []).append((source[m.start : m.end], m.replacement))
    return found


def test_every_operator_finds_its_sites():
    found = _by_operator()
    assert set(found) == set(OPERATORS)
    assert ("<=", ">") in found["flip_comparison"]
    assert ("==", "!=") in found["flip_comparison"]
    assert ("<=", "<") in found["comparison_boundary"]
    assert (">", ">=") in found["comparison_boundary"]
    assert ("0", "1") in found["off_by_one"] and ("1", "2") in found["off_by_one"]
    assert ("1", "0") in found["off_by_one"]
    assert ("not out", "out") in found["negate_condition"]
    condition = "i + size <= len(items) and size > 0"
    assert (condition, f"not ({condition})") in found["negate_condition"]
    assert ("n, 1", "1, n") in found["swap_arguments"]
    assert ("    total = 0\n", "") in found["remove_statement"]
    assert ("        total += 1\n", "") in found["remove_statement"]
    assert ("out", "None") in found["change_return"]
    assert ("n == seen or False", "None") in found["change_return"]
    assert ("and", "or") in found["bool_operator"]
    assert ("or", "and") in found["bool_operator"]
    assert ("+", "-") in found["arithmetic"] and ("+=", "-=") in found["arithmetic"]


def test_docstrings_and_module_level_code_are_left_alone():
    for m in mutations(SNIPPET, "pkg/mod.py"):
        assert m.line > 3, m  # LIMIT = 3 and the def line
        assert "Docstring" not in SNIPPET[m.start : m.end]
    functions = {m.function for m in mutations(SNIPPET, "pkg/mod.py")}
    assert functions == {"window", "Box.full"}


def test_mutations_change_the_code_and_touch_one_place():
    original = ast.dump(ast.parse(SNIPPET))
    for m in mutations(SNIPPET, "pkg/mod.py"):
        changed = m.apply(SNIPPET)
        assert ast.dump(ast.parse(changed)) != original
        # Only the mutated characters differ: the rest of the file keeps its formatting.
        assert changed[: m.start] == SNIPPET[: m.start]
        assert changed[m.start + len(m.replacement) :] == SNIPPET[m.end :]


def test_sites_are_sorted_and_the_same_every_time():
    first = mutations(SNIPPET, "pkg/mod.py")
    assert first == sorted(first)
    assert first == mutations(SNIPPET, "pkg/mod.py")
    assert len({(m.start, m.end, m.replacement) for m in first}) == len(first)


def test_a_lone_statement_is_not_removed_and_comments_block_operator_edits():
    source = "def f(a, b):\n    return (a  # why\n            + b)\n"
    ops = {m.operator for m in mutations(source, "m.py")}
    assert "arithmetic" not in ops
    assert "remove_statement" not in ops


@pytest.mark.parametrize("source", ["def f(x):\n    return f'{x + 1}'\n"])
def test_f_strings_are_not_entered(source):
    assert all(m.operator == "change_return" for m in mutations(source, "m.py"))
