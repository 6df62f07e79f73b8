"""`swift-gym new`'s errors in the voice of every other command: `error: what is wrong: what to
do`, lowercase, each naming the input it is about (the template's own checks included)."""

from __future__ import annotations

from pathlib import Path

from cli_runner import run


def unindented(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line and not line.startswith(" ")]


def test_a_bad_name_is_an_error_line_like_any_command(tmp_path: Path) -> None:
    result = run("new", "Maze Walker", "-o", str(tmp_path))
    assert result.returncode == 2
    lines = unindented(result.stderr)
    assert lines[0].startswith("error: env_name 'Maze Walker' is not a valid env name: ")
    assert lines[-1] == "error: nothing was baked: fix the input above"
    assert all(line.startswith("error: ") for line in lines), lines
    assert list(tmp_path.iterdir()) == []


def test_a_bad_description_is_not_blamed_on_the_name(tmp_path: Path) -> None:
    result = run("new", "maze", "--description", "two\nlines", "-o", str(tmp_path))
    assert result.returncode == 2
    lines = unindented(result.stderr)
    assert lines[0].startswith("error: description 'two\\nlines' is not valid: it must be one line")
    assert "env name 'maze' was refused" not in result.stderr
    assert lines[-1] == "error: nothing was baked: fix the input above"


def test_an_existing_package_directory_is_named_with_what_to_do(tmp_path: Path) -> None:
    assert run("new", "maze", "-o", str(tmp_path)).returncode == 0
    again = run("new", "maze", "-o", str(tmp_path))
    assert again.returncode == 2
    assert again.stderr == (
        f"error: {tmp_path / 'swift-gym-maze'} already exists: give -o another directory, "
        "or remove it\n"
    )
