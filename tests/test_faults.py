"""Broken env packages, installed for real next to the core and FrozenLake in one fresh venv.

Each fault is its own small distribution, built into a wheel with hatchling: an env whose
import raises, entry points naming something that is not an `Env` or nothing at all, two
distributions claiming one env name, a hook plugin whose import raises and one whose hook
raises. New processes then check that each breaks only itself, that the errors name the
distribution (and version) to fix or how to pick, and what the installed `swift-gym` reports.
The last tests give the registry names from data that look like module paths, with a canary
module on PYTHONPATH, and check nothing is imported or run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fake_swift import PROBE as FAKE_SWIFT_PROBE
from fake_swift import write_fake_swift
from installer import build_wheels
from module_paths import MODULE_PATHS as COMMON_MODULE_PATHS
from module_paths import write_canary

if TYPE_CHECKING:
    from conftest import Venv

pytestmark = pytest.mark.slow

GOOD_ENV = """
import swift_gym


class {cls}(swift_gym.Env):
    async def reset(self, request=None):
        return {label!r}, {{}}, ""

    async def step(self, messages):
        return {label!r}, 1.0, True, {{}}
"""


@dataclass
class Package:
    """A distribution to build: its modules, env entry points and hook plugin entry points."""

    name: str
    version: str
    modules: dict[str, str]
    envs: dict[str, str] = field(default_factory=dict)
    plugins: dict[str, str] = field(default_factory=dict)


FAULTY = [
    Package(
        "swift-gym-test-exploding",
        "0.3.1",
        {"gym_exploding": "raise RuntimeError('simulated import failure: libfoo.so not found')\n"},
        envs={"exploding": "gym_exploding:ExplodingEnv"},
    ),
    Package(
        "swift-gym-test-not-an-env",
        "1.0.0",
        {
            "gym_not_an_env": (
                "class NotAnEnv:\n"
                "    async def reset(self, request=None):\n"
                "        return 'looks like an env', {}, ''\n\n\n"
                "def make_env(env_config):\n"
                "    return NotAnEnv()\n"
            )
        },
        envs={"not_an_env": "gym_not_an_env:NotAnEnv", "a_function": "gym_not_an_env:make_env"},
    ),
    Package(
        "swift-gym-test-nowhere",
        "2.0.0",
        {"gym_nowhere": "VALUE = 1\n"},
        envs={"missing_module": "gym_nowhere_missing:Env", "missing_attribute": "gym_nowhere:Env"},
    ),
    Package(
        "swift-gym-test-maze-a",
        "1.0.0",
        {"gym_maze_a": GOOD_ENV.format(cls="MazeEnv", label="maze from a")},
        envs={"maze": "gym_maze_a:MazeEnv"},
    ),
    Package(
        "swift-gym-test-maze-b",
        "2.0.0",
        {"gym_maze_b": GOOD_ENV.format(cls="MazeEnv", label="maze from b")},
        envs={"maze": "gym_maze_b:MazeEnv"},
    ),
    Package(
        "swift-gym-test-bad-hook",
        "0.2.0",
        {
            "gym_bad_hook": "import a_dependency_nobody_installed\n",
            "gym_bad_hook_envs": GOOD_ENV.format(cls="StillWorksEnv", label="still works"),
        },
        envs={"still_works": "gym_bad_hook_envs:StillWorksEnv"},
        plugins={"bad_hook": "gym_bad_hook"},
    ),
    Package(
        "swift-gym-test-raising-hook",
        "0.1.0",
        {
            "gym_raising_hook": (
                "import swift_gym\n\n\n"
                "@swift_gym.hookimpl\n"
                "def swift_gym_register_envs(register):\n"
                "    register('early', 'gym_maze_a:MazeEnv')\n"
                "    raise KeyError('levels.json missing')\n"
            )
        },
        plugins={"raising": "gym_raising_hook"},
    ),
    Package(
        "swift-gym-test-exit-on-import",
        "0.5.0",
        {"gym_exit_on_import": "import sys\n\nsys.exit(3)\n"},
        plugins={"exit_on_import": "gym_exit_on_import"},
    ),
    Package(
        "swift-gym-test-exit-in-hook",
        "0.6.0",
        {
            "gym_exit_in_hook": (
                "import sys\n\nimport swift_gym\n\n\n"
                "@swift_gym.hookimpl\n"
                "def swift_gym_register_envs(register):\n"
                "    sys.exit(4)\n"
            )
        },
        plugins={"exit_in_hook": "gym_exit_in_hook"},
    ),
    Package(
        "swift-gym-test-quitter",
        "1.0.0",
        {"gym_quitter": "import sys\n\nsys.exit(5)\n"},
        envs={"quitter": "gym_quitter:QuitterEnv"},
    ),
    Package(
        "swift-gym-test-misspelt",
        "0.7.0",
        {
            "gym_misspelt": (
                "import swift_gym\n\n\n"
                "@swift_gym.hookimpl\n"
                "def swift_gym_register_env(register):\n"
                "    register('never_registered', 'gym_maze_a:MazeEnv')\n"
            )
        },
        plugins={"misspelt": "gym_misspelt"},
    ),
    Package(
        "swift-gym-test-slow",
        "0.8.0",
        {
            "gym_slow": (
                "import time\n\nimport swift_gym\n\ntime.sleep(0.3)\n\n\n"
                "@swift_gym.hookimpl\n"
                "def swift_gym_register_envs(register):\n"
                "    register('slow_env', 'gym_maze_a:MazeEnv')\n"
            )
        },
        plugins={"slow": "gym_slow"},
    ),
]

BROKEN_ENVS = {  # env name: distribution, version, what the reason must say
    "exploding": (
        "swift-gym-test-exploding",
        "0.3.1",
        "RuntimeError: simulated import failure: libfoo.so not found",
    ),
    "not_an_env": (
        "swift-gym-test-not-an-env",
        "1.0.0",
        "<class 'gym_not_an_env.NotAnEnv'> is not a subclass of swift_gym.Env",
    ),
    "a_function": ("swift-gym-test-not-an-env", "1.0.0", "is not a subclass of swift_gym.Env"),
    "missing_module": (
        "swift-gym-test-nowhere",
        "2.0.0",
        "ModuleNotFoundError: No module named 'gym_nowhere_missing'",
    ),
    "missing_attribute": (
        "swift-gym-test-nowhere",
        "2.0.0",
        "AttributeError: module 'gym_nowhere' has no attribute 'Env'",
    ),
    "quitter": ("swift-gym-test-quitter", "1.0.0", "SystemExit: it called sys.exit(5)"),
}
EXIT_ON_IMPORT = ("swift-gym-test-exit-on-import", "0.5.0")
EXIT_IN_HOOK = (
    "plugin swift-gym-test-exit-in-hook:exit_in_hook failed in swift_gym_register_envs: "
    "SystemExit: it called sys.exit(4)"
)
MISSPELT = (
    "swift_gym_register_env is not a swift-gym hook, so it is never called; "
    "did you mean swift_gym_register_envs?"
)
BAD_HOOK = ("swift-gym-test-bad-hook", "0.2.0")
RAISING_HOOK = "plugin swift-gym-test-raising-hook:raising failed in swift_gym_register_envs"
AMBIGUOUS = "env name 'maze' is registered by 2 distributions: "


def write_package(root: Path, package: Package) -> Path:
    """A source tree that `uv build` (or `pip wheel`) builds with hatchling."""
    directory = root / package.name
    for module, source in package.modules.items():
        (directory / "src" / module).mkdir(parents=True)
        (directory / "src" / module / "__init__.py").write_text(textwrap.dedent(source))
    entry_points = ""
    for group, entries in (
        ("swift_gym.envs", package.envs),
        ("swift_gym.plugins", package.plugins),
    ):
        if entries:
            entry_points += f'\n[project.entry-points."{group}"]\n'
            entry_points += "".join(f'{key} = "{value}"\n' for key, value in entries.items())
    modules = ", ".join(f'"src/{module}"' for module in package.modules)
    (directory / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [build-system]
            requires = ["hatchling"]
            build-backend = "hatchling.build"

            [project]
            name = "{package.name}"
            version = "{package.version}"
            description = "A deliberately broken swift-gym env package, for fault injection."
            requires-python = ">=3.10"
            dependencies = ["swift-gym"]

            [tool.hatch.build.targets.wheel]
            packages = [{modules}]
            """
        )
        + entry_points
    )
    return directory


def shared_helpers(request: pytest.FixtureRequest):
    """tests/conftest.py, as loaded by pytest (import mode importlib gives it no import name)."""
    path = Path(__file__).with_name("conftest.py").resolve()
    for plugin in request.config.pluginmanager.get_plugins():
        module_file = getattr(plugin, "__file__", None)
        if module_file and Path(module_file).resolve() == path:
            return plugin
    raise LookupError(f"{path} is not loaded")


@pytest.fixture(scope="session")
def faulty_venv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, wheels: list[Path]
) -> Venv:
    """One fresh venv: the core, FrozenLake and every faulty distribution, from real wheels."""
    sources = tmp_path_factory.mktemp("fault-packages")
    directories = [write_package(sources, package) for package in FAULTY]
    built = build_wheels(directories, tmp_path_factory.mktemp("fault-wheels"))
    assert len(built) == len(FAULTY)
    env = shared_helpers(request).make_venv(tmp_path_factory.mktemp("venv") / "faulty")
    env.pip(*wheels, *built)
    return env


def run_json(env: Venv, code: str, **environ: str) -> dict:
    """Run `code` in a new process of `env`; it prints one JSON document."""
    result = env.run(textwrap.dedent(code), env=environ)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def swift_gym_command(
    env: Venv, *args: str, cwd: Path | None = None, **environ: str
) -> subprocess.CompletedProcess[str]:
    """The installed `swift-gym` of `env`, with no colour and no SWIFT_GYM_* from the caller."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    clean.pop("PYTHONPATH", None)
    clean.update({"NO_COLOR": "1", "COLUMNS": "250", **environ})
    return subprocess.run(
        [str(env.path / "bin" / "swift-gym"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd or env.path,
        env=clean,
    )


# --- the registry, from Python ----------------------------------------------------------------

LISTING = """
import json, sys
import swift_gym
from swift_gym.registry import default_registry

registry = default_registry()
print(json.dumps({
    "envs": [[s.name, s.distribution, s.version] for s in swift_gym.list_envs()],
    "names": registry.names(),
    "problems": registry.problems,
    "plugins": [[p.name, p.distribution, p.version, p.error] for p in registry.plugins],
    "imported": sorted(m for m in sys.modules if m.startswith("gym_")),
}))
"""


def test_listing_shows_every_env_and_imports_none(faulty_venv: Venv) -> None:
    listing = run_json(faulty_venv, LISTING)
    envs = {(name, dist) for name, dist, _ in listing["envs"]}
    assert ("frozen_lake", "swift-gym-frozen-lake") in envs
    assert ("still_works", BAD_HOOK[0]) in envs  # its distribution's hook plugin is broken
    for name, (dist, _, _) in BROKEN_ENVS.items():
        assert (name, dist) in envs  # listed from metadata; broken only when used
    assert ("maze", "swift-gym-test-maze-a") in envs and ("maze", "swift-gym-test-maze-b") in envs
    assert ("early", "swift-gym-test-raising-hook") in envs  # registered before its hook raised
    assert "swift-gym-test-maze-a:maze" in listing["names"]
    assert "swift-gym-test-maze-b:maze" in listing["names"]
    assert "maze" not in listing["names"] and "frozen_lake" in listing["names"]
    # the hook plugins that load, and no env module
    assert listing["imported"] == [
        "gym_exit_in_hook",
        "gym_misspelt",
        "gym_raising_hook",
        "gym_slow",
    ]
    assert [p for p in listing["problems"] if RAISING_HOOK in p] == [
        f"{RAISING_HOOK}: KeyError: 'levels.json missing'"
    ]


def test_a_hook_plugin_that_fails_to_import_is_recorded_with_its_distribution(
    faulty_venv: Venv,
) -> None:
    listing = run_json(faulty_venv, LISTING)
    plugins = {name: (dist, version, error) for name, dist, version, error in listing["plugins"]}
    assert plugins[f"{BAD_HOOK[0]}:bad_hook"] == (
        *BAD_HOOK,
        "ModuleNotFoundError: No module named 'a_dependency_nobody_installed'",
    )
    assert plugins["swift-gym-frozen-lake:frozen_lake"] == ("swift-gym-frozen-lake", "0.1.0", None)
    result = faulty_venv.run(LISTING)
    assert f"{BAD_HOOK[0]}:bad_hook (gym_bad_hook) failed to load and is skipped" in result.stderr


def test_frozen_lake_and_its_reward_still_load_next_to_a_broken_hook_plugin(
    faulty_venv: Venv,
) -> None:
    found = run_json(
        faulty_venv,
        """
        import json
        from swift_gym.rewards import collect_rewards
        print(json.dumps(sorted(name for name in collect_rewards())))
        """,
    )
    assert found == ["frozen_lake_format", "swift_gym_success", "swift_gym_total"]


MAKE_EACH = """
import asyncio, json, sys
import swift_gym

def attempt(name):
    try:
        env = swift_gym.make(name)
    except Exception as error:
        return {"error": type(error).__name__, "message": str(error),
                "distribution": getattr(error, "distribution", None),
                "version": getattr(error, "version", None)}
    observation, info, _ = asyncio.run(env.reset())
    return {"class": type(env).__module__ + ":" + type(env).__name__, "observation": observation}

results = {"first frozen_lake": attempt({"name": "frozen_lake", "seed": 0})}
for name in NAMES:
    results[name] = attempt(name)
    results[name + " again"] = attempt(name)
results["last frozen_lake"] = attempt({"name": "frozen_lake", "seed": 0})
print(json.dumps(results))
"""


def test_each_broken_env_fails_alone_naming_the_distribution_to_fix(faulty_venv: Venv) -> None:
    names = [*BROKEN_ENVS, "still_works"]
    results = run_json(faulty_venv, MAKE_EACH.replace("NAMES", repr(names)))
    for name, (dist, version, reason) in BROKEN_ENVS.items():
        for attempt in (results[name], results[f"{name} again"]):  # the failure is kept
            assert attempt["error"] == "EnvLoadError", name
            assert (attempt["distribution"], attempt["version"]) == (dist, version)
            message = attempt["message"]
            assert message.startswith(f"env {name!r} from {dist} {version} failed to load (")
            assert reason in message
            fix = f"Fix or reinstall {dist}, or skip it with SWIFT_GYM_DISABLE_PLUGINS={dist}."
            assert message.endswith(fix)
            assert "Traceback" not in message
    assert results["still_works"] == {
        "class": "gym_bad_hook_envs:StillWorksEnv",
        "observation": "still works",
    }
    for key in ("first frozen_lake", "last frozen_lake"):
        assert results[key]["class"] == "swift_gym_frozen_lake.env:FrozenLakeEnv"
        assert "You are at row 1, col 2." in results[key]["observation"]


def test_two_distributions_with_one_name_say_how_to_pick(faulty_venv: Venv) -> None:
    names = ["maze", "swift-gym-test-maze-a:maze", "swift_gym_test_maze_b:maze", "other:maze"]
    results = run_json(faulty_venv, MAKE_EACH.replace("NAMES", repr(names)))
    ambiguous = results["maze"]
    assert ambiguous["error"] == "AmbiguousEnvError"
    assert ambiguous["message"] == (
        f"{AMBIGUOUS}swift-gym-test-maze-a, swift-gym-test-maze-b. Pick one with "
        "'swift-gym-test-maze-a:maze' or 'swift-gym-test-maze-b:maze', "
        "or uninstall the one you do not want."
    )
    assert results["swift-gym-test-maze-a:maze"]["observation"] == "maze from a"
    assert results["swift_gym_test_maze_b:maze"]["observation"] == "maze from b"  # normalised
    assert results["other:maze"]["error"] == "UnknownEnvError"


def test_the_advice_in_the_errors_works(faulty_venv: Venv) -> None:
    """Disabling the distributions the messages name leaves a clean registry."""
    names = list(BROKEN_ENVS)
    results = run_json(faulty_venv, MAKE_EACH.replace("NAMES", repr(names)))
    advised = set()
    for name in names:
        advised |= set(
            re.findall(r"SWIFT_GYM_DISABLE_PLUGINS=([\w.-]+?)\.?$", results[name]["message"])
        )
    assert advised == {dist for dist, _, _ in BROKEN_ENVS.values()}
    advised |= {BAD_HOOK[0], "swift-gym-test-raising-hook", EXIT_ON_IMPORT[0]}
    advised |= {"swift-gym-test-exit-in-hook", "swift-gym-test-misspelt"}
    listing = run_json(faulty_venv, LISTING, SWIFT_GYM_DISABLE_PLUGINS=",".join(sorted(advised)))
    assert listing["problems"] == []
    assert all(error is None for *_, error in listing["plugins"])
    names = {name for name, *_ in listing["envs"]}
    assert names == {
        "frozen_lake",
        "frozen_lake_ms_swift",
        "maze",
        "mcp_tools",
        "openenv",
        "slow_env",
    }
    plugins = swift_gym_command(
        faulty_venv, "plugins", SWIFT_GYM_DISABLE_PLUGINS=",".join(sorted(advised))
    )
    assert plugins.returncode == 0, plugins.stdout + plugins.stderr


# --- the installed swift-gym command ------------------------------------------------------------


def test_swift_gym_list_shows_the_envs_and_warns_about_the_broken_hook(faulty_venv: Venv) -> None:
    result = swift_gym_command(faulty_venv, "list")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    listed = [("frozen_lake", "swift-gym-frozen-lake"), ("still_works", BAD_HOOK[0])]
    listed += [("maze", "swift-gym-test-maze-a"), ("maze", "swift-gym-test-maze-b")]
    listed += [(name, dist) for name, (dist, _, _) in BROKEN_ENVS.items()]
    for name, dist in listed:
        assert any(re.search(rf"\b{name}\b.*\b{dist}\b", line) for line in lines), (name, dist)
    assert f"warning: {RAISING_HOOK}: KeyError: 'levels.json missing'" in result.stderr
    assert f"{BAD_HOOK[0]}:bad_hook (gym_bad_hook) failed to load" in result.stderr
    assert "Traceback" not in result.stderr


def test_swift_gym_list_json_stays_parseable(faulty_venv: Venv) -> None:
    result = swift_gym_command(faulty_venv, "list", "--json")
    assert result.returncode == 0, result.stderr
    listed = {(env["qualified_name"], env["version"]) for env in json.loads(result.stdout)}
    assert ("swift-gym-test-maze-a:maze", "1.0.0") in listed
    assert ("swift-gym-test-exploding:exploding", "0.3.1") in listed
    assert ("swift-gym-frozen-lake:frozen_lake", "0.1.0") in listed


def test_swift_gym_plugins_reports_the_failures_and_exits_1(faulty_venv: Venv) -> None:
    result = swift_gym_command(faulty_venv, "plugins")
    assert result.returncode == 1, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if f"{BAD_HOOK[0]}:bad_hook" in line)
    assert BAD_HOOK[1] in line
    assert "failed: ModuleNotFoundError: No module named 'a_dependency_nobody_installed'" in line
    frozen = next(line for line in result.stdout.splitlines() if "swift-gym-frozen-lake:" in line)
    assert "loaded" in frozen
    assert f"problem: {RAISING_HOOK}: KeyError: 'levels.json missing'" in result.stdout
    as_json = swift_gym_command(faulty_venv, "plugins", "--json")
    assert as_json.returncode == 1
    report = json.loads(as_json.stdout)
    failed = [plugin for plugin in report["plugins"] if plugin["error"]]
    assert sorted((p["distribution"], p["version"]) for p in failed) == [BAD_HOOK, EXIT_ON_IMPORT]


@pytest.mark.parametrize("name", ["exploding", "not_an_env", "missing_module", "maze"])
def test_swift_gym_info_on_a_broken_env_is_a_usage_error_with_the_fix(
    faulty_venv: Venv, name: str
) -> None:
    result = swift_gym_command(faulty_venv, "info", name)
    assert result.returncode == 2
    error = next(line for line in result.stderr.splitlines() if line.startswith("error: "))
    if name == "maze":
        assert AMBIGUOUS in error and "'swift-gym-test-maze-a:maze' or" in error
    else:
        dist, version, reason = BROKEN_ENVS[name]
        assert f"from {dist} {version} failed to load" in error and reason in error
        assert f"SWIFT_GYM_DISABLE_PLUGINS={dist}" in error
    assert "Traceback" not in result.stderr


def test_swift_gym_info_picks_one_of_two_by_distribution(faulty_venv: Venv) -> None:
    result = swift_gym_command(faulty_venv, "info", "swift-gym-test-maze-b:maze")
    assert result.returncode == 0, result.stderr
    assert "from swift-gym-test-maze-b 2.0.0  (gym_maze_b:MazeEnv)" in result.stdout


def test_swift_gym_validate_reports_only_the_rows_of_broken_envs(
    faulty_venv: Venv, tmp_path: Path
) -> None:
    names = [
        "frozen_lake",
        "exploding",
        "swift-gym-test-maze-a:maze",
        "maze",
        "missing_attribute",
        "still_works",
    ]
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text("".join(json.dumps({"env_config": {"name": n}}) + "\n" for n in names))
    result = swift_gym_command(faulty_venv, "validate", str(dataset), "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert (report["rows"], report["bad_rows"]) == (6, 3)
    bad = {problem["line"]: problem for problem in report["problems"]}
    assert sorted(bad) == [2, 4, 5]
    assert "from swift-gym-test-exploding 0.3.1 failed to load" in bad[2]["reason"]
    assert AMBIGUOUS in bad[4]["reason"]
    assert "AttributeError" in bad[5]["reason"]
    assert "swift-gym-test-nowhere 2.0.0" in bad[5]["reason"]
    assert report["envs"]["frozen_lake"] == {"rows": 1, "bad": 0}
    assert report["envs"]["still_works"] == {"rows": 1, "bad": 0}


def test_swift_gym_eval_of_frozen_lake_is_untouched_by_broken_neighbours(
    faulty_venv: Venv,
) -> None:
    result = swift_gym_command(faulty_venv, "eval", "frozen_lake", "--policy", "oracle", "-n", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "goal" in result.stdout
    broken = swift_gym_command(faulty_venv, "eval", "exploding", "--policy", "random", "-n", "1")
    assert broken.returncode == 2
    assert "failed to load" in broken.stderr and "swift-gym-test-exploding 0.3.1" in broken.stderr


# --- plugins that exit, misspell a hook or import slowly -----------------------------------

EXIT_ON_IMPORT_WARNING = (
    "swift-gym-test-exit-on-import:exit_on_import (gym_exit_on_import) failed to load and is "
    "skipped: SystemExit: it called sys.exit(3)"
)


def test_plugins_that_exit_stop_no_command(faulty_venv: Venv, tmp_path: Path) -> None:
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text(json.dumps({"env_config": {"name": "frozen_lake", "seed": 0}}) + "\n")
    for args, code in (
        (("list",), 0),
        (("info", "frozen_lake"), 0),
        (("validate", str(dataset)), 0),
        (("eval", "frozen_lake", "--policy", "oracle", "-n", "1"), 0),
        (("plugins",), 1),
    ):
        result = swift_gym_command(faulty_venv, *args)
        assert result.returncode == code, (args, result.stdout, result.stderr)
        assert EXIT_ON_IMPORT_WARNING in result.stderr, args
        assert EXIT_IN_HOOK in result.stderr, args
    line = next(line for line in result.stdout.splitlines() if EXIT_ON_IMPORT[0] in line)
    assert "failed: SystemExit: it called sys.exit(3)" in line


def test_an_env_module_that_exits_fails_alone_in_each_command(
    faulty_venv: Venv, tmp_path: Path
) -> None:
    reason = "SystemExit: it called sys.exit(5)"
    for args in (("info", "quitter"), ("eval", "quitter", "--policy", "random", "-n", "1")):
        result = swift_gym_command(faulty_venv, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert "from swift-gym-test-quitter 1.0.0 failed to load" in result.stderr
        assert reason in result.stderr and "Traceback" not in result.stderr
    dataset = tmp_path / "rows.jsonl"
    names = ["quitter", "frozen_lake"]
    dataset.write_text("".join(json.dumps({"env_config": {"name": n}}) + "\n" for n in names))
    result = swift_gym_command(faulty_venv, "validate", str(dataset), "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert (report["rows"], report["bad_rows"]) == (2, 1)
    assert reason in report["problems"][0]["reason"]


def test_ms_swift_imports_its_registries_next_to_plugins_that_exit(
    faulty_venv: Venv, tmp_path: Path
) -> None:
    swift = write_fake_swift(tmp_path / "fake-swift")
    result = faulty_venv.run(FAKE_SWIFT_PROBE, env={"PYTHONPATH": str(swift)})
    assert result.returncode == 0, result.stdout + result.stderr
    seen = json.loads(result.stdout)
    assert {"math_env", "frozen_lake", "still_works", "quitter"} <= set(seen["envs"])
    assert seen["schedulers"] == ["gym_scheduler", "swift_gym"]
    assert EXIT_ON_IMPORT_WARNING in result.stderr
    assert EXIT_IN_HOOK in result.stderr


def test_a_misspelt_hook_is_a_problem_of_its_distribution(faulty_venv: Venv) -> None:
    result = swift_gym_command(faulty_venv, "plugins")
    assert result.returncode == 1
    line = next(line for line in result.stdout.splitlines() if "swift-gym-test-misspelt:" in line)
    assert "0.7.0" in line and f"loaded; problem: {MISSPELT}" in line
    assert f"swift-gym-test-misspelt:misspelt (gym_misspelt): {MISSPELT}" in result.stderr
    report = json.loads(swift_gym_command(faulty_venv, "plugins", "--json").stdout)
    (misspelt,) = [p for p in report["plugins"] if p["distribution"] == "swift-gym-test-misspelt"]
    assert (misspelt["error"], misspelt["problems"]) == (None, [MISSPELT])
    disabled = ",".join(
        [
            BAD_HOOK[0],
            EXIT_ON_IMPORT[0],
            "swift-gym-test-exit-in-hook",
            "swift-gym-test-raising-hook",
        ]
    )
    others_disabled = swift_gym_command(faulty_venv, "plugins", SWIFT_GYM_DISABLE_PLUGINS=disabled)
    assert others_disabled.returncode == 1, others_disabled.stdout  # the misspelt hook alone


SLOW_WARNING = re.compile(
    r"swift-gym plugin swift-gym-test-slow:slow took \d+\.\d s to import, which every swift-gym "
    r"command and ms-swift process waits for; make it lighter, or skip it with "
    r"SWIFT_GYM_DISABLE_PLUGINS=swift-gym-test-slow \(this warning: "
    r"SWIFT_GYM_SLOW_PLUGIN_SECONDS=0\.1\)"
)


def test_a_slow_plugin_is_timed_and_named_over_the_threshold(faulty_venv: Venv) -> None:
    result = swift_gym_command(
        faulty_venv, "plugins", "--json", SWIFT_GYM_SLOW_PLUGIN_SECONDS="0.1"
    )
    assert SLOW_WARNING.search(result.stderr), result.stderr
    assert "swift-gym-frozen-lake:frozen_lake took" not in result.stderr
    report = json.loads(result.stdout)
    times = {p["name"]: p["load_seconds"] for p in report["plugins"]}
    assert times["swift-gym-test-slow:slow"] >= 0.3
    assert times["swift-gym-frozen-lake:frozen_lake"] < 0.3
    table = swift_gym_command(faulty_venv, "plugins")
    line = next(line for line in table.stdout.splitlines() if "swift-gym-test-slow:slow" in line)
    assert re.search(r"0\.8\.0\s+\d{3} ms\s+loaded", line), line
    assert " took " not in table.stderr  # under the default threshold, 1 s


# --- names from data are never module paths ---------------------------------------------------


MODULE_PATHS = [
    *COMMON_MODULE_PATHS,
    "somecanarymodule:frozen_lake",  # reads as distribution:name
    "gym_exploding:ExplodingEnv",  # an installed module that raises when imported
    "gym_maze_a:MazeEnv",  # an installed, working env class, by module path
]


@pytest.fixture
def canary(tmp_path: Path) -> dict[str, str]:
    """PYTHONPATH with `somecanarymodule`, which writes CANARY_FILE when imported or called."""
    directory = write_canary(tmp_path / "canary")
    return {"PYTHONPATH": str(directory), "CANARY_FILE": str(tmp_path / "canary-fired")}


MAKE_MODULE_PATHS = """
import json, os, sys
import swift_gym
from swift_gym.registry import default_registry

results = {}
for name in NAMES:
    for how, call in (
        ("make name", lambda: swift_gym.make(name)),
        ("make env_config", lambda: swift_gym.make({"name": name, "seed": 0})),
        ("override", lambda: swift_gym.make({"name": "frozen_lake"}, name=name)),
        ("class", lambda: swift_gym.get_env_class(name)),
        ("resolve", lambda: default_registry().resolve(name)),
    ):
        try:
            call()
            results[name + " / " + how] = "made"
        except Exception as error:
            results[name + " / " + how] = type(error).__name__
watched = ("somecanarymodule", "gym_exploding", "gym_maze_a")
imported = sorted(module for module in watched if module in sys.modules)
fired = os.path.exists(os.environ["CANARY_FILE"])
import somecanarymodule  # the control: the canary does fire when something imports it
print(json.dumps({"results": results, "imported": imported, "fired_before": fired,
                  "fired_after_import": os.path.exists(os.environ["CANARY_FILE"])}))
"""


def test_names_that_look_like_module_paths_never_import_or_run_anything(
    faulty_venv: Venv, canary: dict[str, str]
) -> None:
    found = run_json(faulty_venv, MAKE_MODULE_PATHS.replace("NAMES", repr(MODULE_PATHS)), **canary)
    assert set(found["results"].values()) == {"UnknownEnvError"}, found["results"]
    assert found["imported"] == []
    assert found["fired_before"] is False
    assert found["fired_after_import"] is True  # so the canary was on the path, armed


def test_swift_gym_validate_reports_module_paths_as_unknown_envs(
    faulty_venv: Venv, canary: dict[str, str], tmp_path: Path
) -> None:
    dataset = tmp_path / "paths.jsonl"
    rows = [{"env_config": {"name": "frozen_lake", "seed": 0}}]
    rows += [{"env_config": {"name": name, "seed": 0}} for name in MODULE_PATHS]
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = swift_gym_command(faulty_venv, "validate", str(dataset), "--json", **canary)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["bad_rows"] == len(MODULE_PATHS)
    assert report["envs"]["frozen_lake"] == {"rows": 1, "bad": 0}
    problems = {problem["line"]: problem for problem in report["problems"]}
    for line, name in enumerate(MODULE_PATHS, start=2):
        assert problems[line]["field"] == "env_config.name"
        assert problems[line]["reason"].startswith("unknown env"), problems[line]
        assert problems[line]["value"] == name
    plain = swift_gym_command(faulty_venv, "validate", str(dataset), **canary)
    assert plain.returncode == 1
    assert "line 2 (os:system): env_config.name: unknown env (got 'os:system')" in plain.stdout
    assert not Path(canary["CANARY_FILE"]).exists()


def test_gym_env_option_and_commands_refuse_module_paths(
    faulty_venv: Venv, canary: dict[str, str], tmp_path: Path
) -> None:
    dataset = tmp_path / "unnamed.jsonl"
    dataset.write_text(json.dumps({"env_config": {"seed": 0}}) + "\n")
    result = swift_gym_command(
        faulty_venv, "validate", str(dataset), "--gym-env", "somecanarymodule:attr", **canary
    )
    assert result.returncode == 1
    assert "unknown env (got 'somecanarymodule:attr')" in result.stdout
    for args in (
        ("info", "somecanarymodule:attr"),
        ("eval", "somecanarymodule:attr", "--policy", "random", "-n", "1"),
        ("play", "os:system"),
    ):
        result = swift_gym_command(faulty_venv, *args, **canary)
        assert result.returncode == 2, (args, result.stderr)
        assert "unknown env" in result.stderr
    assert not Path(canary["CANARY_FILE"]).exists()
