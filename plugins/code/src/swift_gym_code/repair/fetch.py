"""Fetching a pinned sdist into the operator's cache, hash-checked, and unpacking it once.

The cache is the operator's: `SWIFT_GYM_CODE_CACHE`, else `$XDG_CACHE_HOME/swift-gym/code`, else
`~/.cache/swift-gym/code`. It holds `sdists/<filename>` (checked against the pin every time it is
used, so a file changed on disk is refused, not trusted) and `src/<name>-<version>/` (the sdist
unpacked without its top folder; written under a temporary name and renamed, so a half-unpacked
tree is never taken for a whole one)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from .made_once import made_once
from .projects import Project

CACHE_VARIABLE = "SWIFT_GYM_CODE_CACHE"


class FetchError(RuntimeError):
    """An sdist could not be fetched or unpacked; the message says what to do."""


class SdistHashError(FetchError):
    """An sdist's sha256 is not the pinned one: it is not the code the tasks were made from."""


def cache_dir(cache: str | os.PathLike[str] | None = None) -> Path:
    """The cache directory: the argument, else the operator's variable, else the user's cache."""
    if cache is not None:
        return Path(cache).expanduser()
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "swift-gym" / "code"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sdist(project: Project, path: Path) -> None:
    """Raise SdistHashError unless the file at path is the pinned sdist."""
    got = sha256_of(path)
    if got != project.sha256:
        raise SdistHashError(
            f"{path} is not {project.requirement}'s pinned sdist: its sha256 is {got}, "
            f"the pin is {project.sha256}. Delete the file to fetch it again; if PyPI serves "
            f"this file now, the project's pin needs a new release of swift-gym-code."
        )


def fetch_sdist(project: Project, cache: str | os.PathLike[str] | None = None) -> Path:
    """The pinned sdist's path in the cache, downloaded with pip if absent; always hash-checked."""
    target = cache_dir(cache) / "sdists" / project.sdist
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".download-") as tmp:
            _pip_download(project, Path(tmp))
            downloaded = Path(tmp) / project.sdist
            if not downloaded.exists():
                found = ", ".join(sorted(p.name for p in Path(tmp).iterdir())) or "nothing"
                raise FetchError(
                    f"pip downloaded {found} for {project.requirement}, not {project.sdist}"
                )
            check_sdist(project, downloaded)
            os.replace(downloaded, target)
    check_sdist(project, target)
    return target


def _pip_download(project: Project, into: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(into),
        project.requirement,
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except FileNotFoundError as e:  # pragma: no cover - sys.executable always exists
        raise FetchError(f"cannot run pip: {e}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip()[-1500:]
        raise FetchError(
            f"pip could not download {project.requirement}'s sdist (exit {done.returncode}). "
            f"Is PyPI (or your index) reachable from this machine, and is pip installed in "
            f"{sys.executable}? pip said:\n{tail}"
        )


def unpacked_source(project: Project, cache: str | os.PathLike[str] | None = None) -> Path:
    """The project's unpacked tree in the cache (fetched and unpacked on first use).

    Treat it as read-only: copy it (`copy_project`) before changing anything in it."""
    root = cache_dir(cache) / "src" / f"{project.name}-{project.version}"
    sdist = fetch_sdist(project, cache)

    def unpack(scratch: Path) -> Path:
        with tarfile.open(sdist) as archive:
            _extract(archive, scratch)
        tops = list(scratch.iterdir())
        if len(tops) != 1 or not tops[0].is_dir():
            raise FetchError(f"{sdist.name} does not hold one top folder")
        return tops[0]

    return made_once(root, unpack)


def _extract(archive: tarfile.TarFile, into: Path) -> None:
    if hasattr(tarfile, "data_filter"):
        archive.extractall(into, filter="data")
        return
    for member in archive.getmembers():  # pragma: no cover - Python < 3.10.12
        name = Path(member.name)
        if name.is_absolute() or ".." in name.parts or not (member.isfile() or member.isdir()):
            raise FetchError(f"refusing the archive member {member.name!r}")
    archive.extractall(into)  # pragma: no cover


def copy_project(
    project: Project, into: str | os.PathLike[str], cache: str | os.PathLike[str] | None = None
) -> Path:
    """Copy the project's pristine tree to `into` (which must not exist yet) and return it."""
    into = Path(into)
    shutil.copytree(unpacked_source(project, cache), into, symlinks=True)
    return into
