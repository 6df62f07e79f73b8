"""Each package builds as PyPI would take it, under the name the docs use: an sdist, then a wheel
built from that sdist (as `uv build` and `python -m build` do, and as a user's pip does from
PyPI), both passing `twine check --strict` (metadata, and a README that renders on PyPI's page).
The wheel ships every file the package's src/ holds, and the core's the env template that
`swift-gym new` bakes (it lies outside core/: a wheel built from a bare sdist once lacked it).
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from install_lines import REPO, tracked
from installer import UV

PACKAGES = {
    "core": "swift_gym",
    "plugins/frozen_lake": "swift_gym_frozen_lake",
    "plugins/gymnasium": "swift_gym_gymnasium",
    "plugins/reasoning_gym": "swift_gym_reasoning_gym",
    "plugins/textarena": "swift_gym_textarena",
    "plugins/verifiers": "swift_gym_verifiers",
}
"""Each published package's directory and the name its files carry (plugins/template is no
package: `swift-gym new` bakes it)."""


def _build(source: str, out: Path) -> subprocess.CompletedProcess[str]:
    """An sdist of `source`, then a wheel from that sdist, into `out`."""
    if UV:
        command = [UV, "build", "--quiet", "--out-dir", str(out), str(REPO / source)]
    else:
        command = [sys.executable, "-m", "build", "--outdir", str(out), str(REPO / source)]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if UV is None:
        pytest.importorskip("build", reason="needs uv (every tox env has it) or `build`")
    out = tmp_path_factory.mktemp("dist")
    with ThreadPoolExecutor(max_workers=3) as pool:
        built = pool.map(lambda source: _build(source, out), PACKAGES)
        results = dict(zip(PACKAGES, built, strict=True))
    failed = {source: done.stderr[-2000:] for source, done in results.items() if done.returncode}
    assert failed == {}
    return out


@pytest.mark.slow
def test_every_package_builds_an_sdist_and_a_wheel_that_twine_passes(built: Path) -> None:
    names = {path.name.split("-")[0] for path in built.iterdir() if path.suffix == ".whl"}
    assert names == set(PACKAGES.values())
    for name in PACKAGES.values():
        assert len(list(built.glob(f"{name}-*.tar.gz"))) == 1, name
    files = sorted(str(path) for path in built.iterdir() if path.name.endswith((".whl", ".gz")))
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *files],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.slow
@pytest.mark.parametrize("source", PACKAGES)
def test_the_wheel_from_the_sdist_ships_every_file_of_src(built: Path, source: str) -> None:
    (wheel,) = built.glob(f"{PACKAGES[source]}-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    expected = {name.removeprefix(f"{source}/src/") for name in tracked(f"{source}/src/**")}
    if source == "core":
        template = tracked("plugins/template/**")
        expected |= {"swift_gym/template/" + name.split("/", 2)[2] for name in template}
    assert expected - shipped == set()
