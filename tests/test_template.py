"""The cookiecutter template bakes a package that installs, is discovered and passes its tests.

Bakes run through cookiecutter's API (its hook runs in a subprocess, as for a user); the
end-to-end test installs the core and two baked packages into a fresh venv, as a user would,
and runs each baked package's own test suite there.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from cookiecutter.exceptions import FailedHookException
from cookiecutter.main import cookiecutter
from installer import install_command, needs_pip

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "plugins" / "template"

LONG_NAME = "maze_2048_walker_with_a_rather_long_name_v2"
UNUSUAL = {
    "env_name": LONG_NAME,
    "author": 'Zoë Ågren-Łukasz 李雷 "Q" \\o/',
    "description": 'Un jeu — « guess » with "quotes", a backslash \\ and an emoji 🧊',
}


def cookiecutter_config(tmp_path: Path) -> Path:
    """A cookiecutter config that keeps its replay files out of the user's home."""
    config = tmp_path / "cookiecutter.yaml"
    config.write_text(f'cookiecutters_dir: "{tmp_path}/cc"\nreplay_dir: "{tmp_path}/replay"\n')
    return config


@pytest.fixture
def bake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Bake the template with `extra` inputs into a fresh directory; returns the project dir."""
    monkeypatch.setenv("COOKIECUTTER_CONFIG", str(cookiecutter_config(tmp_path)))
    count = iter(range(100))

    def make(**extra: str) -> Path:
        out = tmp_path / f"out{next(count)}"
        return Path(cookiecutter(str(TEMPLATE), no_input=True, extra_context=extra, output_dir=out))

    return make


def tree(root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}


def expected_tree(package: str) -> set[str]:
    return {
        ".gitignore",
        "README.md",
        "pyproject.toml",
        f"src/{package}/__init__.py",
        f"src/{package}/config.py",
        f"src/{package}/env.py",
        "tests/conftest.py",
        "tests/test_conformance.py",
        "tests/test_env.py",
        "tests/test_installed.py",
    }


def test_default_bake_has_the_documented_names(bake) -> None:
    project = bake()
    assert project.name == "swift-gym-my_env"
    assert tree(project) == expected_tree("swift_gym_my_env")
    pyproject = (project / "pyproject.toml").read_text()
    assert 'name = "swift-gym-my-env"' in pyproject
    assert (
        '[project.entry-points."swift_gym.envs"]\nmy_env = "swift_gym_my_env:MyEnvEnv"' in pyproject
    )
    assert 'dependencies = ["swift-gym>=0.1,<0.2"]' in pyproject
    assert 'packages = ["src/swift_gym_my_env"]' in pyproject
    readme = (project / "README.md").read_text()
    assert readme.startswith("# swift-gym-my-env\n")
    assert "## Make it your env" in readme


@pytest.mark.parametrize("inputs", [{}, UNUSUAL], ids=["default", "unusual"])
def test_every_baked_file_is_rendered_and_python_compiles(bake, inputs) -> None:
    project = bake(**inputs)
    for path in project.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            for leftover in ("{{", "}}", "{%", "cookiecutter"):
                assert leftover not in text, f"{path.name} holds {leftover!r}"
            if path.suffix == ".py":
                compile(text, str(path), "exec")


def test_unusual_inputs_bake_valid_names_and_metadata(bake) -> None:
    tomllib = pytest.importorskip("tomllib")
    project = bake(**UNUSUAL)
    package = f"swift_gym_{LONG_NAME}"
    assert project.name == f"swift-gym-{LONG_NAME}"
    assert tree(project) == expected_tree(package)
    metadata = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    assert metadata["project"]["name"] == "swift-gym-" + LONG_NAME.replace("_", "-")
    assert metadata["project"]["description"] == UNUSUAL["description"]
    assert metadata["project"]["authors"] == [{"name": UNUSUAL["author"]}]
    envs = metadata["project"]["entry-points"]["swift_gym.envs"]
    assert envs == {LONG_NAME: f"{package}:Maze2048WalkerWithARatherLongNameV2Env"}
    assert UNUSUAL["description"] in (project / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("env_name", "reason", "try_instead"),
    [
        ("Maze-Walker", "must be a lowercase Python identifier", "maze_walker"),
        ("2fast", "a letter a-z first", "fast"),
        ("maze walker", "must be a lowercase Python identifier", "maze_walker"),
        ("class", "is a Python keyword", "class_env"),
        ('a"b\\c', "must be a lowercase Python identifier", "a_b_c"),
        ("", "must be a lowercase Python identifier", "my_env"),
        ("x" * 65, "65 characters long; at most 64", None),
    ],
)
def test_invalid_names_are_refused_with_a_clear_message(
    bake, capfd, env_name, reason, try_instead
) -> None:
    with pytest.raises(FailedHookException):
        bake(env_name=env_name)
    message = capfd.readouterr().err
    assert f"error: env_name {env_name!r} is not a valid env name: " in message
    assert reason in message
    if try_instead:
        assert f"Try: env_name={try_instead}" in message


def test_multi_line_description_is_refused(bake, capfd, tmp_path: Path) -> None:
    with pytest.raises(FailedHookException):
        bake(description="two\nlines")
    assert "description 'two\\nlines' is not valid: it must be one line" in capfd.readouterr().err
    assert not list((tmp_path / "out0").glob("*"))  # nothing is left behind


def test_the_command_line_shows_the_message_first(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "cookiecutter", "--no-input", str(TEMPLATE)]
    result = subprocess.run(
        [*command, "env_name=Maze-Walker", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "COOKIECUTTER_CONFIG": str(cookiecutter_config(tmp_path))},
        timeout=120,
    )
    assert result.returncode != 0
    assert result.stderr.startswith("error: env_name 'Maze-Walker' is not a valid env name")
    assert list(tmp_path.glob("swift-gym-*")) == []


def test_the_template_is_not_collected_by_pytest() -> None:
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    result = subprocess.run(
        [*command, str(TEMPLATE)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 5, result.stdout + result.stderr  # 5: no tests collected
    assert "error" not in result.stdout.lower()


@pytest.mark.slow
def test_baked_packages_install_and_pass_their_own_tests(bake, tmp_path: Path) -> None:
    default, unusual = bake(env_name="maze_walker"), bake(**UNUSUAL)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=needs_pip(), clear=True).create(env_dir)
    python = str(env_dir / "bin" / "python")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SWIFT_GYM_", "PYTEST_"))}
    environ.pop("PYTHONPATH", None)

    def call(command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, capture_output=True, text=True, cwd=tmp_path, env=environ, timeout=900
        )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return call([python, *args])

    packages = [str(REPO / "core"), str(default), str(unusual), "pytest", "pytest-asyncio"]
    installed = call([*install_command(python), *packages])
    assert installed.returncode == 0, installed.stderr
    for project in (default, unusual):
        result = run("-m", "pytest", str(project))
        assert result.returncode == 0, result.stdout + result.stderr
        assert " passed" in result.stdout and "failed" not in result.stdout
        assert "test_conformance.py" in result.stdout and "test_installed.py" in result.stdout
    listed = run(
        "-c", "import json, swift_gym; print(json.dumps([s.name for s in swift_gym.list_envs()]))"
    )
    assert listed.returncode == 0, listed.stderr
    assert {"maze_walker", LONG_NAME} <= set(json.loads(listed.stdout))
    for policy in ("random", "oracle"):  # the baselines eval offers, on the baked env
        evaluated = run("-m", "swift_gym", "eval", "maze_walker", "--policy", policy, "-n", "20",
                        "--json")  # fmt: skip
        assert evaluated.returncode == 0, evaluated.stderr
        summary = json.loads(evaluated.stdout)
        assert summary["episodes"] == 20 and summary["failed_episodes"] == 0
        assert summary["invalid_action_rate"] == 0.0  # judged (valid_action), and all valid
        assert summary["cut_off"] == 0  # the env's horizon (max_guesses) is the turn limit
    assert summary["success_rate"] == 1.0  # the oracle's


def swift_gym_new(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`swift-gym new ...` in a new process, with cookiecutter's files kept in `tmp_path`."""
    env = {**(env or os.environ), "COOKIECUTTER_CONFIG": str(cookiecutter_config(tmp_path))}
    command = [sys.executable, "-m", "swift_gym", "new", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_swift_gym_new_bakes_the_template_shipped_with_the_core(bake, tmp_path: Path) -> None:
    result = swift_gym_new(tmp_path, "maze_walker", "-o", str(tmp_path / "new"), "--author", "Zoë")
    assert result.returncode == 0, result.stderr
    project = tmp_path / "new" / "swift-gym-maze_walker"
    assert f"baked {project}" in result.stdout
    reference = bake(env_name="maze_walker", author="Zoë")  # from plugins/template directly
    assert tree(project) == tree(reference) == expected_tree("swift_gym_maze_walker")
    for name in tree(project):
        assert (project / name).read_bytes() == (reference / name).read_bytes(), name


def test_swift_gym_new_refuses_a_bad_name_with_the_hooks_message(tmp_path: Path) -> None:
    result = swift_gym_new(tmp_path, "Maze Walker", "-o", str(tmp_path / "new"))
    assert result.returncode == 2
    assert "Try: env_name=maze_walker" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "new").exists() or not any((tmp_path / "new").iterdir())


SHIPPED = sorted(
    path.parent.name
    for path in (REPO / "plugins").glob("*/pyproject.toml")
    if path.parent.name != "template"
)


@pytest.mark.parametrize("env_name", [*SHIPPED, "frozen__lake"])
def test_names_of_shipped_distributions_are_refused(bake, capfd, env_name) -> None:
    tomllib = pytest.importorskip("tomllib")
    owner = {
        re.sub(r"[-_.]+", "-", name): name
        for name in (
            tomllib.loads((REPO / "plugins" / plugin / "pyproject.toml").read_text())["project"][
                "name"
            ]
            for plugin in SHIPPED
        )
    }
    distribution = re.sub(r"[-_.]+", "-", f"swift-gym-{env_name}")
    if distribution not in owner:
        pytest.skip(f"{distribution} is no shipped distribution")
    with pytest.raises(FailedHookException):
        bake(env_name=env_name)
    message = capfd.readouterr().err
    assert f"error: env_name {env_name!r} is taken: " in message
    assert f"the distribution {owner[distribution]} ships with swift-gym" in message
    assert f"Try: env_name=my_{re.sub('_+', '_', env_name)}" in message


def fake_installed(site: Path, distribution: str, envs: dict[str, str]) -> None:
    """A distribution's metadata in `site`, as pip leaves it (nothing importable)."""
    info = site / f"{distribution.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in envs.items())
    (info / "entry_points.txt").write_text(f"[swift_gym.envs]\n{lines}")


def test_swift_gym_new_refuses_names_an_installed_distribution_owns(tmp_path: Path) -> None:
    site = tmp_path / "site"
    fake_installed(site, "swift-gym-maze-walker", {"maze_runner": "swift_gym_maze:MazeEnv"})
    environ = {**os.environ, "PYTHONPATH": str(site)}
    out = tmp_path / "new"
    for env_name, reason in [
        ("maze_walker", "the distribution swift-gym-maze-walker is installed"),
        ("maze_runner", "the env maze_runner is registered by swift-gym-maze-walker"),
    ]:
        result = swift_gym_new(tmp_path, env_name, "-o", str(out), env=environ)
        assert result.returncode == 2, result.stderr
        assert f"error: env_name {env_name!r} is taken: {reason}" in result.stderr
        assert f"Try: env_name=my_{env_name}" in result.stderr
        assert not out.exists() or not any(out.iterdir())
    assert swift_gym_new(tmp_path, "maze_walker", "-o", str(out)).returncode == 0  # not installed
