"""The sdist cache: a file whose sha256 is not the pin's is refused, a good one is unpacked once."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import tarfile

import pytest
from swift_gym_code.repair.fetch import (
    CACHE_VARIABLE,
    SdistHashError,
    cache_dir,
    copy_project,
    fetch_sdist,
    unpacked_source,
)
from swift_gym_code.repair.projects import PROJECTS, project_named


def _sdist(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_tampered_sdist_in_the_cache_is_refused(tmp_path):
    project = project_named("toolz")
    sdists = tmp_path / "sdists"
    sdists.mkdir()
    (sdists / project.sdist).write_bytes(b"not toolz at all")
    with pytest.raises(SdistHashError, match=r"is not toolz==1\.2\.0.s pinned sdist") as caught:
        fetch_sdist(project, tmp_path)
    assert project.sha256 in str(caught.value)
    assert hashlib.sha256(b"not toolz at all").hexdigest() in str(caught.value)
    with pytest.raises(SdistHashError):
        unpacked_source(project, tmp_path)
    assert not (tmp_path / "src").exists()


def test_a_pinned_sdist_is_unpacked_once_and_copied(tmp_path):
    data = _sdist({"demo-1.0/demo.py": "X = 1\n", "demo-1.0/test_demo.py": "def test(): pass\n"})
    project = dataclasses.replace(
        PROJECTS[0],
        name="demo",
        version="1.0",
        sdist="demo-1.0.tar.gz",
        sha256=hashlib.sha256(data).hexdigest(),
    )
    (tmp_path / "sdists").mkdir()
    (tmp_path / "sdists" / project.sdist).write_bytes(data)
    root = unpacked_source(project, tmp_path)
    assert root == tmp_path / "src" / "demo-1.0"
    assert (root / "demo.py").read_text() == "X = 1\n"
    (root / "marker").write_text("unpacked once")
    assert unpacked_source(project, tmp_path) == root
    assert (root / "marker").exists()
    copy = copy_project(project, tmp_path / "work", tmp_path)
    assert (copy / "test_demo.py").exists()


def test_the_cache_is_the_operators(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "ops"))
    assert cache_dir() == tmp_path / "ops"
    assert cache_dir(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv(CACHE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "swift-gym" / "code"
