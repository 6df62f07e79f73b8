"""`swift-gym list`, `info` and `plugins` at narrow and wide terminals, and with 100,000 envs.

Each runs the installed command in a new process. Nothing is cut mid-word at any width: names
are whole, descriptions wrap at spaces. A plugin registering 100,000 envs (a real distribution,
its dist-info on PYTHONPATH) gets the whole listing, and short unknown-env messages.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_runner import python_json, run

WIDTHS = [40, 80, 200]


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("columns", WIDTHS)
def test_info_wraps_descriptions_at_spaces_and_cuts_nothing(columns: int) -> None:
    result = run("info", "frozen_lake", env={"COLUMNS": str(columns)})
    assert result.returncode == 0, result.stderr
    details = json.loads(run("info", "frozen_lake", "--json").stdout)
    lines = result.stdout.splitlines()
    shown = words(result.stdout)
    for field in details["fields"]:
        assert words(field["description"]) in shown, field["name"]
    assert words(details["description"]) in shown
    described = [line for line in lines if line.startswith("    ")]
    assert len(described) > len(details["fields"])  # some wrapped onto more lines
    assert all(len(line) <= max(columns, 28) for line in described), columns
    assert not any(line.endswith("…") for line in lines)


@pytest.mark.parametrize("columns", WIDTHS)
def test_plugins_and_list_show_whole_names(columns: int) -> None:
    env = {"COLUMNS": str(columns)}
    plugins = run("plugins", env=env)
    assert plugins.returncode == 0, plugins.stdout + plugins.stderr
    # the status is beside its row, or (when that is too narrow) on the lines under it
    frozen = r"^swift-gym-frozen-lake:frozen_lake\s+0\.1\.0\s+\d+ ms\s+loaded$"
    assert re.search(frozen, plugins.stdout, re.M), plugins.stdout
    assert re.search(r"^swift_gym\.entry_points\s+-\s+\d+ ms\s+built in$", plugins.stdout, re.M)
    assert all(len(line) <= columns for line in plugins.stdout.splitlines()[1:] if line[:1] == " ")
    listing = run("list", env=env)
    assert listing.returncode == 0, listing.stderr
    assert re.search(r"^frozen_lake\s+swift-gym-frozen-lake\s+0\.1\.0\s", listing.stdout, re.M)
    summary = json.loads(run("list", "--json").stdout)[0]["description"]
    assert words(summary) in words(listing.stdout)
    assert "…" not in plugins.stdout + listing.stdout


def test_list_escapes_control_characters_from_package_metadata(tmp_path: Path) -> None:
    info = tmp_path / "gym_loud-1.0.dist-info"
    info.mkdir()
    summary = "clears \x1b[2J the screen and rings \x07 a bell"
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: gym-loud\nVersion: 1.0\nSummary: {summary}\n"
    )
    (info / "entry_points.txt").write_text("[swift_gym.envs]\nloud = gym_loud:Env\n")
    result = run("list", env={"PYTHONPATH": str(tmp_path), "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "clears \\x1b[2J the screen and rings \\x07 a bell" in result.stdout


def test_plugins_json_has_load_times() -> None:
    result = run("plugins", "--json")
    assert result.returncode == 0
    for plugin in json.loads(result.stdout)["plugins"]:
        assert isinstance(plugin["load_seconds"], float) and plugin["load_seconds"] >= 0
        assert plugin["problems"] == []


MANY = """
import swift_gym


@swift_gym.hookimpl
def swift_gym_register_envs(register):
    for index in range(100_000):
        register(f"level_{index:05d}", "swift_gym_frozen_lake:FrozenLakeEnv")
"""


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """PYTHONPATH holding `gym-many`, a distribution whose hook registers 100,000 envs."""
    site = tmp_path_factory.mktemp("many")
    info = site / "gym_many-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: gym-many\nVersion: 1.0\nSummary: levels of a family\n"
    )
    (info / "entry_points.txt").write_text("[swift_gym.plugins]\nmany = gym_many\n")
    (site / "gym_many.py").write_text(MANY)
    # registering 100,000 envs takes about a second: more on a loaded machine, where the
    # slow-plugin warning would come first on stderr
    return {"PYTHONPATH": str(site), "SWIFT_GYM_SLOW_PLUGIN_SECONDS": "60"}


def test_list_of_100k_envs_is_complete(many: dict[str, str]) -> None:
    result = run("list", env=many)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + 100_004  # the header, the levels, FrozenLake's two, the core's two
    assert re.fullmatch(r"level_04242\s+gym-many\s+1\.0\s+opt-in\s+levels of a family", lines[4245])
    assert len(json.loads(run("list", "--json", env=many).stdout)) == 100_004


def test_an_unknown_env_among_100k_is_a_short_message(many: dict[str, str]) -> None:
    result = run("info", "level_0424x", env=many)
    assert result.returncode == 2
    assert len(result.stderr) < 1000, len(result.stderr)
    assert result.stderr.startswith("error: unknown env 'level_0424x'. Did you mean 'level_04240'?")
    assert "frozen_lake, frozen_lake_ms_swift, level_00000, level_00001," in result.stderr
    assert "and 99,984 more (swift-gym list shows them all)." in result.stderr


def test_validate_with_many_bad_rows_among_100k_envs_stays_small(
    many: dict[str, str], tmp_path: Path
) -> None:
    dataset = tmp_path / "rows.jsonl"
    rows = [{"env_config": {"name": f"levl_{index:05d}"}} for index in range(200)]
    dataset.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = run("validate", str(dataset), "--json", env=many)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["bad_rows"] == 200
    assert len(result.stdout) < 200 * 1500, len(result.stdout)
    first = report["problems"][0]
    assert "did you mean 'level_00000'?" in first["reason"], first
    assert "and 99,984 more" in first["reason"]


def test_list_filters_by_glob_and_distribution_and_groups(many: dict[str, str]) -> None:
    result = run("list", "level_0424?", "frozen_lake", env=many)
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines()[1:]]
    assert names == ["frozen_lake"] + [f"level_0424{k}" for k in range(10)]
    by_dist = json.loads(run("list", "--json", "-d", "swift_gym_frozen_lake", env=many).stdout)
    assert [e["name"] for e in by_dist] == ["frozen_lake", "frozen_lake_ms_swift"]
    qualified = run("list", "--json", "swift-gym:*", env=many)
    assert [e["name"] for e in json.loads(qualified.stdout)] == ["mcp_tools", "openenv"]
    grouped = run("list", "--group", env=many).stdout.splitlines()
    assert grouped[0].split() == ["distribution", "version", "envs", "names"]
    assert re.match(r"gym-many\s+1\.0\s+100,000\s+level_00000, level_00001, ", grouped[1])
    assert "and 99,992 more" in run("list", "--group", env=many).stdout
    none = run("list", "nothing*", "-d", "gym-many", env=many)
    assert none.returncode == 1
    assert "no installed env matches 'nothing*' in gym-many" in none.stderr


@pytest.mark.parametrize("given", ["frozen_lake", "swift-gym-frozen-lak", "swift_gym_frozenlake"])
def test_list_d_naming_no_distribution_suggests_the_one_meant(given: str) -> None:
    result = run("list", "-d", given)
    assert result.returncode == 1
    assert result.stdout == ""
    assert (
        f"-d {given}: no installed distribution has that name; did you mean "
        "'swift-gym-frozen-lake'? Distributions with envs: swift-gym, swift-gym-frozen-lake"
    ) in " ".join(result.stderr.split())
    json_result = run("list", "--json", "-d", given)
    assert (json_result.returncode, json.loads(json_result.stdout)) == (1, [])
    assert "did you mean 'swift-gym-frozen-lake'?" in json_result.stderr


def test_plugins_lists_env_only_packages_too(tmp_path: Path) -> None:
    info = tmp_path / "gym_envs_only-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gym-envs-only\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text(
        "[swift_gym.envs]\nfirst = gym_envs_only:First\nsecond = gym_envs_only:Second\n"
    )
    result = run("plugins", env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("env packages (swift_gym.envs entry points, no hook needed):")
    assert lines[start + 1].split() == ["distribution", "version", "envs"]
    rows = [line.split() for line in lines[start + 2 :]]
    assert ["gym-envs-only", "1.2", "2"] in rows
    assert ["swift-gym-frozen-lake", "0.1.0", "2"] in rows
    assert ["swift-gym", "0.1.0", "2"] in rows  # the core's openenv and mcp_tools
    listed = json.loads(run("plugins", "--json", env={"PYTHONPATH": str(tmp_path)}).stdout)
    assert {"distribution": "gym-envs-only", "version": "1.2", "envs": 2} in listed["env_packages"]


def test_each_env_of_a_package_has_a_description_of_its_own_read_without_importing_it(
    tmp_path: Path,
) -> None:
    code = (
        "import json, sys\n"
        "from swift_gym.registry import default_registry\n"
        "described = {s.name: s.description for s in default_registry().list()}\n"
        "imported = [m for m in ('swift_gym_frozen_lake.env', 'swift_gym.remote.env') "
        "if m in sys.modules]\n"
        "print(json.dumps([described, imported]))"
    )
    described, imported = python_json(code, tmp_path)
    assert imported == []  # listing reads the sources, imports no env
    classes = python_json(
        "import json, swift_gym_frozen_lake as f\n"
        "from swift_gym.remote.env import OpenEnvEnv\n"
        "first = lambda c: c.__doc__.strip().splitlines()[0]\n"
        "print(json.dumps({'frozen_lake': first(f.FrozenLakeEnv), "
        "'frozen_lake_ms_swift': first(f.MsSwiftFrozenLakeEnv), 'openenv': first(OpenEnvEnv)}))",
        tmp_path,
    )
    assert {name: described[name] for name in classes} == classes
    assert len(set(classes.values())) == 3
    assert "OpenEnv" in classes["openenv"] and "see the module docstring" not in classes["openenv"]
    listing = run("list")
    for name, line in classes.items():
        assert re.search(rf"^{name}\s", listing.stdout, re.M)
        assert words(line) in words(listing.stdout), line
