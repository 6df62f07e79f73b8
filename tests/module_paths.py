"""Env names that look like module paths, and a canary module that says if it was ever imported.

Names from data must only resolve to registered envs, never import anything: the tests feed
these names through every entry point and check that the canary's file never appears.
"""

from __future__ import annotations

from pathlib import Path

MODULE_PATHS = [
    "os:system",
    "builtins:eval",
    "subprocess:Popen",
    "swift_gym.registry:make",
    "../etc/passwd",
    "__import__('os')",
    "somecanarymodule:attr",
    "somecanarymodule",
]

CANARY = """
import os, pathlib

pathlib.Path(os.environ["CANARY_FILE"]).write_text("imported")


def attr(*args, **kwargs):
    pathlib.Path(os.environ["CANARY_FILE"]).write_text("called")


system = eval = Popen = make = attr
"""


def write_canary(directory: Path) -> Path:
    """`somecanarymodule.py` in a new `directory`; it writes $CANARY_FILE if imported or called."""
    directory.mkdir()
    (directory / "somecanarymodule.py").write_text(CANARY)
    return directory
