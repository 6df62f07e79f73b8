"""swift-gym-code's face: help, and errors a user can act on without a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from swift_gym_code.cli import main


def test_help_names_the_commands():
    done = subprocess.run(
        [sys.executable, "-m", "swift_gym_code.cli", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "prefetch" in done.stdout and "generate" in done.stdout


def test_generate_help_names_its_options(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["generate", "--help"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    for option in ("--project", "--limit", "--max-tries", "--seed", "--python", "--cache"):
        assert option in out


def test_an_unknown_project_is_an_error_listing_the_projects(capsys, tmp_path):
    assert main(["prefetch", "--project", "nope", "--cache", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "no code.repair project named 'nope'" in err
    assert "toolz" in err and "Traceback" not in err


def test_bad_numbers_and_a_missing_output_are_refused(capsys, tmp_path):
    out = str(tmp_path / "t.jsonl")
    assert main(["generate", "-o", out, "--limit", "0"]) == 1
    assert "--limit, --max-tries and --workers must be at least 1" in capsys.readouterr().err
    assert main(["generate", "-o", out, "--python", str(tmp_path / "none")]) == 1
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:
        main(["generate"])
    assert caught.value.code == 2
