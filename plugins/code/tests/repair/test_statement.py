"""Problem statements say what fails and how, never where the bug is."""

from __future__ import annotations

from swift_gym_code.repair.statement import MAX_LISTED, problem_statement


def test_names_the_tests_and_their_errors():
    text = problem_statement(
        "toolz",
        "1.2.0",
        {"toolz/tests/test_itertoolz.py::test_partition": "AssertionError: assert [1] == [2]"},
        tree="/tmp/x/project",
        changed="toolz/itertoolz.py",
    )
    assert text.startswith("1 test fails in toolz 1.2.0\n")
    assert "`toolz/tests/test_itertoolz.py::test_partition`" in text
    assert "AssertionError: assert [1] == [2]" in text
    assert "toolz/itertoolz.py" not in text


def test_messages_that_point_at_the_bug_keep_only_their_type():
    failing = {
        "tests/test_a.py::test_one": 'NameError: in /tmp/x/project/pkg/core.py, line 12: "x"',
        "tests/test_a.py::test_two": "TypeError: f() failed at core.py:40",
        "tests/test_a.py::test_three": "ValueError: <object at 0x7f3a9c2b1d40> is bad",
    }
    text = problem_statement("pkg", "1.0", failing, tree="/tmp/x/project", changed="pkg/core.py")
    assert "core.py" not in text
    assert "line 12" not in text and ":40" not in text
    assert "/tmp/x" not in text
    assert "  NameError\n" in text and "  TypeError\n" in text
    assert "ValueError: <object at 0x...> is bad" in text


def test_long_lists_are_cut():
    failing = {f"t.py::test_{i:02d}": "AssertionError" for i in range(MAX_LISTED + 3)}
    text = problem_statement("pkg", "1.0", failing, tree="/t", changed="pkg/a.py")
    assert f"{MAX_LISTED + 3} tests fail" in text
    assert "- and 3 more" in text
    assert "t.py::test_10" not in text
