"""ms-swift must never fail because of swift-gym: a partly deleted install, in a fresh venv.

The core and FrozenLake are installed from real wheels, next to a stand-in of ms-swift's three
registry modules (a `swift` package in the same site-packages, see fake_swift.py). One module
file of `swift_gym` at a time is deleted, as a failed upgrade or a cleaning script might leave
it; ms-swift's own `import swift.rollout.gym_env` must then still work, with a warning that
says why swift-gym's entries are missing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fake_swift import PROBE, write_fake_swift

if TYPE_CHECKING:
    from conftest import Venv

pytestmark = pytest.mark.slow


def shared_helpers(request: pytest.FixtureRequest):
    """tests/conftest.py, as loaded by pytest (import mode importlib gives it no import name)."""
    path = Path(__file__).with_name("conftest.py").resolve()
    for plugin in request.config.pluginmanager.get_plugins():
        module_file = getattr(plugin, "__file__", None)
        if module_file and Path(module_file).resolve() == path:
            return plugin
    raise LookupError(f"{path} is not loaded")


@pytest.fixture(scope="module")
def swift_venv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, wheels: list[Path]
) -> tuple[Venv, Path]:
    """A fresh venv with the wheels and the ms-swift stand-in; and its site-packages."""
    env = shared_helpers(request).make_venv(tmp_path_factory.mktemp("venv") / "swift")
    env.pip(*wheels)
    found = env.run("import sysconfig; print(sysconfig.get_paths()['purelib'])")
    site = Path(found.stdout.strip())
    write_fake_swift(site)
    return env, site


def probe_without(env: Venv, site: Path, missing: str, **environ: str):
    """Run PROBE with `missing` (a path under site-packages) deleted, then put it back."""
    path = site / missing
    saved = path.read_bytes()
    path.unlink()
    try:
        return env.run(PROBE, env=environ)
    finally:
        path.write_bytes(saved)


def test_the_stand_in_is_filled_by_an_intact_install(swift_venv) -> None:
    env, _ = swift_venv
    result = env.run(PROBE)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["envs"] == [
        "frozen_lake",
        "frozen_lake_ms_swift",
        "math_env",
        "mcp_tools",
        "openenv",
        "swift-gym-frozen-lake:frozen_lake",
        "swift-gym-frozen-lake:frozen_lake_ms_swift",
        "swift-gym:mcp_tools",
        "swift-gym:openenv",
    ]
    assert seen["schedulers"] == ["gym_scheduler", "swift_gym"]
    assert result.stderr == ""


@pytest.mark.parametrize(
    "missing",
    [
        "swift_gym/lazy.py",  # (without an __init__.py a package still imports, as a namespace)
        "swift_gym/ms_swift/registration.py",
        "swift_gym/registry.py",
        "swift_gym/plugins.py",
        "swift_gym/ms_swift/scheduler.py",
    ],
)
@pytest.mark.parametrize("warnings", ["default", "error"])
def test_ms_swift_imports_its_registries_from_a_partly_deleted_swift_gym(
    swift_venv, missing: str, warnings: str
) -> None:
    env, site = swift_venv
    result = probe_without(env, site, missing, PYTHONWARNINGS=warnings)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert "math_env" in seen["envs"] and "gym_scheduler" in seen["schedulers"]
    assert seen["orms"][0] == "format"
    assert "swift-gym could not register into swift.rollout." in result.stderr
    module = missing.removesuffix(".py").replace("/", ".")
    assert f"ModuleNotFoundError: No module named '{module}'" in result.stderr
