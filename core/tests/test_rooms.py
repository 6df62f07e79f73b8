"""What two rooms hold. Who may import whom is stated once, as import-linter's contracts in the
repository's pyproject.toml, and checked by `lint-imports` in `tox -e lint`
(tests/test_import_contracts.py shows a planted import breaks them)."""

from __future__ import annotations

from pathlib import Path

import swift_gym

PACKAGE = Path(swift_gym.__file__).parent


def test_the_reward_registry_is_beside_the_env_registry() -> None:
    from swift_gym import rewards
    from swift_gym.ms_swift import rewards as adapter

    assert set(rewards.BUILTIN_REWARDS) == {"swift_gym_total", "swift_gym_success"}
    assert callable(rewards.collect_rewards)
    assert not hasattr(adapter, "BUILTIN_REWARDS")  # ms_swift/ only adapts: the ORM classes


def test_cli_holds_commands_and_views_only() -> None:
    engine = {"episodes", "runner", "policies", "openai_policy", "stats", "sources"}
    page = {"report_page", "page", "svg", "episode_browser"}  # the report's: a library, report/
    present = {path.stem for path in (PACKAGE / "cli").glob("*.py")}
    assert not engine & present
    assert not page & present
    assert {"page", "svg", "episode_browser"} <= {p.stem for p in (PACKAGE / "report").glob("*.py")}


def test_placement_holds_where_envs_live() -> None:
    """The worker threads, the background loop, serve's runners and Ray's actors are one room,
    placement/; the rooms that use them (serving, remote, agent, mcp) keep none of their own."""
    placement = PACKAGE / "placement"
    assert {"worker", "background", "runners", "choice"} <= {p.stem for p in placement.glob("*.py")}
    assert {"host", "pool", "env", "cluster"} <= {p.stem for p in (placement / "ray").glob("*.py")}
    assert not list((PACKAGE / "ray").glob("*.py"))
    assert not {"worker", "placement"} & {p.stem for p in (PACKAGE / "serving").glob("*.py")}
    assert not (PACKAGE / "remote" / "background.py").exists()
