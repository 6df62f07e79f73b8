"""The plain columns of `list` and `plugins`: wrapping at spaces, widths in terminal cells."""

from __future__ import annotations

from swift_gym.cli.columns import column_lines, visible, wrap


def test_wrap_breaks_at_spaces_and_splits_only_overlong_words() -> None:
    assert wrap("one two three four", 9) == ["one two", "three", "four"]
    assert wrap("  spaced\n\tout  ", 20) == ["spaced out"]
    assert wrap("abcdefghij xy", 4) == ["abcd", "efgh", "ij", "xy"]
    assert wrap("", 10) == [""]


def test_wrap_counts_terminal_cells() -> None:
    lines = wrap("冰湖 游戏 环境 测试", 9)  # each word is 4 cells wide
    assert lines == ["冰湖 游戏", "环境 测试"]


def test_control_characters_are_shown_escaped() -> None:
    assert visible("a\x1b[2Jb\x07\x9b") == "a\\x1b[2Jb\\x07\\x9b"
    assert wrap("x\x1b]0;title\x07 y", 80) == ["x\\x1b]0;title\\x07 y"]


def test_columns_fit_the_widest_cell_and_wrap_the_last() -> None:
    rows = [("frozen_lake", "a long description here"), ("x", "short")]
    assert list(column_lines(("name", "about"), rows, 40)) == [
        [("name         ", "about")],
        [("frozen_lake  ", "a long description here")],
        [("x            ", "short")],
    ]
    rows = [("frozen_lake", "a long description here and more")]
    narrow = list(column_lines(("name", "about"), rows, 37))  # 24 cells left for the last
    assert narrow[1] == [("frozen_lake  ", "a long description here"), (" " * 13, "and more")]


def test_too_narrow_puts_the_last_column_under_its_row() -> None:
    rows = [("a-very-long-plugin-name:entry", "loaded")]
    assert list(column_lines(("plugin", "status"), rows, 40)) == [
        [("plugin", ""), ("    ", "status")],
        [("a-very-long-plugin-name:entry", ""), ("    ", "loaded")],
    ]
