"""The Python that docs/python.md shows works as shown: its first block runs as written in a new
process, and the error it shows for a bad config is the error `make` raises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import clean_environ

REPO = Path(__file__).resolve().parents[1]
PAGE = (REPO / "docs" / "python.md").read_text(encoding="utf-8")


def block(after: str, language: str) -> str:
    """The first ```language block after the text `after`."""
    assert after in PAGE, f"no {after!r} in docs/python.md"
    found = re.search(rf"```{language}\n(.*?)```", PAGE.split(after, 1)[1], re.S)
    assert found, f"no {language!r} block after {after!r}"
    return found.group(1)


def test_using_envs_from_python_runs_as_written(tmp_path: Path) -> None:
    code = block("## Using envs from Python", "python")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=clean_environ(("PYTHONPATH",)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "'frozen_lake'" in done.stdout


def test_the_error_shown_is_the_error_raised() -> None:
    import swift_gym

    shown = block("that lists every problem:", "").strip().splitlines()
    with pytest.raises(swift_gym.InvalidConfigError) as raised:
        swift_gym.make({"name": "frozen_lake", "size": "big", "colour": 1})
    actual = str(raised.value).splitlines()
    assert len(actual) == len(shown)
    for line, expected in zip(actual, shown, strict=True):
        if expected.endswith(", ..."):  # the page cuts the long list of allowed keys
            assert line.startswith(expected.removesuffix("..."))
        else:
            assert line == expected
