"""`swift-gym list`'s tools column and `--tools`: what each env declares, read without importing.

A real distribution (its dist-info on PYTHONPATH) registers one env of each kind through a hook
plugin, and the installed core and FrozenLake declare theirs in their classes' bodies; the
listing shows each and `--tools` keeps exactly those that may take tool calls.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run

KINDS = """
import swift_gym


@swift_gym.hookimpl
def swift_gym_register_envs(register):
    for use in ("always", "opt-in", "varies", "no"):
        register(f"kind-{use}", "gym_kinds_envs:Missing", tool_use=use)
    register("kind-undeclared", "gym_kinds_envs:Missing")
"""


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """PYTHONPATH holding `gym-kinds`: one env per declaration, and one without; the module
    they name does not exist, so a listing that imported any would fail."""
    site = tmp_path_factory.mktemp("kinds")
    info = site / "gym_kinds-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gym-kinds\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[swift_gym.plugins]\nkinds = gym_kinds\n")
    (site / "gym_kinds.py").write_text(KINDS)
    return {"PYTHONPATH": str(site)}


def listed(*args: str, env: dict[str, str]) -> dict[str, str | None]:
    result = run("list", "--json", *args, env=env)
    assert result.returncode == 0, result.stderr
    return {entry["name"]: entry["tool_use"] for entry in json.loads(result.stdout)}


def test_each_env_shows_what_it_declares(kinds: dict[str, str]) -> None:
    uses = listed(env=kinds)
    assert uses["kind-always"] == "always"
    assert uses["kind-opt-in"] == "opt-in"
    assert uses["kind-varies"] == "varies"
    assert uses["kind-no"] == "no"
    assert uses["kind-undeclared"] is None
    # the shipped ones, from their classes' bodies
    assert uses["frozen_lake"] == "opt-in"
    assert uses["frozen_lake_ms_swift"] == "opt-in"
    assert uses["mcp_tools"] == "always"
    assert uses["openenv"] == "varies"


def test_the_table_has_a_tools_column(kinds: dict[str, str]) -> None:
    result = run("list", "kind-*", "frozen_lake", env={**kinds, "COLUMNS": "120"})
    assert result.returncode == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    assert header.split() == ["name", "distribution", "version", "tools", "description"]
    tools = {row.split()[0]: row.split()[3] for row in rows if row[:1] != " "}
    assert tools == {
        "frozen_lake": "opt-in",
        "kind-always": "always",
        "kind-no": "no",
        "kind-opt-in": "opt-in",
        "kind-undeclared": "?",
        "kind-varies": "varies",
    }


def test_tools_lists_only_envs_that_may_take_tool_calls(kinds: dict[str, str]) -> None:
    every = listed(env=kinds)
    taking = listed("--tools", env=kinds)
    assert set(taking) == {
        name for name, use in every.items() if use in {"always", "opt-in", "varies"}
    }
    assert {"kind-always", "kind-opt-in", "kind-varies", "frozen_lake", "mcp_tools"} <= set(taking)
    assert not {"kind-no", "kind-undeclared"} & set(taking)
    # with patterns and -d, an env must match them too
    assert set(listed("--tools", "kind-*", env=kinds)) == {"kind-always", "kind-opt-in",
                                                           "kind-varies"}  # fmt: skip
    table = run("list", "--tools", "kind-*", env=kinds)
    assert [line.split()[0] for line in table.stdout.splitlines()[1:]] == [
        "kind-always",
        "kind-opt-in",
        "kind-varies",
    ]


def test_tools_matching_nothing_says_so_and_exits_1(kinds: dict[str, str], tmp_path: Path) -> None:
    result = run("list", "--tools", "kind-no", env=kinds)
    assert result.returncode == 1
    assert "no installed env matches 'kind-no' that takes tools" in result.stderr
    assert run("list", "--tools", "--json", "kind-no", env=kinds).returncode == 1
