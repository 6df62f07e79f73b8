"""pytest for the sandbox: a folder holding only pytest and what it imports, copied once into
the operator's cache from this interpreter's installed distributions, and mounted read-only on
the workspace's PYTHONPATH. The sandbox's interpreter runs the standard library only; mounting
the whole site-packages would show every installed package to the model's commands."""

from __future__ import annotations

import contextlib
import os
import shutil
from importlib import metadata
from pathlib import Path

from .repair.fetch import cache_dir
from .repair.made_once import made_once

DISTRIBUTIONS = ("pytest", "pluggy", "iniconfig", "packaging", "pygments")
"""pytest and its runtime dependencies on Python 3.10+ (pygments since pytest 8.4; exceptiongroup
and tomli are stdlib's or unneeded from 3.11; taken too when installed)."""
OPTIONAL = ("exceptiongroup", "tomli")


def pytest_path(cache: str | os.PathLike[str] | None = None) -> Path:
    """The folder to mount: made on first use, named by the versions it holds."""
    dists = [metadata.distribution(name) for name in DISTRIBUTIONS]
    for name in OPTIONAL:
        with contextlib.suppress(metadata.PackageNotFoundError):
            dists.append(metadata.distribution(name))
    label = "-".join(f"{d.metadata['Name']}{d.version}" for d in dists)
    root = cache_dir(cache) / "pytest" / label

    def copy(scratch: Path) -> Path:
        for dist in dists:
            _copy_files(dist, scratch)
        return scratch

    return made_once(root, copy)


def _copy_files(dist: metadata.Distribution, into: Path) -> None:
    """The distribution's importable files (its RECORD), without metadata or scripts."""
    for file in dist.files or ():
        parts = file.parts
        if not parts or parts[0].endswith((".dist-info", ".egg-info")) or parts[0] == "..":
            continue
        if file.suffix == ".pyc" or "__pycache__" in parts:
            continue
        source = Path(file.locate())
        if not source.is_file():
            continue
        target = into.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
