"""Plugins that exit, interrupt, misspell their hooks, import slowly or register 100,000 envs.

In-process, on fake distributions read by importlib.metadata; `tests/test_faults.py` repeats the
checks that matter with real installed wheels and the `swift-gym` command.
"""

from __future__ import annotations

import importlib.metadata
import logging

import pytest

from swift_gym import EnvLoadError, UnknownEnvError
from swift_gym.env_names import EnvNames
from swift_gym.registry import Registry

pytestmark = pytest.mark.usefixtures("clean_plugin_env")

EXIT_IN_HOOK = """
    import sys
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        register("before_exit", "gym_a:A")
        sys.exit(3)
"""

MISSPELT = """
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_env(register):
        register("never", "gym_a:A")


    def swift_gym_register_rewards(register):
        register("never_either", "gym_a:reward")
"""

NO_HOOK = """
    def register_envs(register):
        register("never", "gym_a:A")
"""

SLOW = """
    import time
    import swift_gym

    time.sleep(0.2)


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        register("slow_env", "gym_a:A")
"""

MANY = """
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        for index in range(100_000):
            register(f"level_{index:05d}", "gym_many:Level")
"""


def only(monkeypatch: pytest.MonkeyPatch, *distributions: str) -> None:
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", ",".join(distributions))


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("import sys\nsys.exit(3)\n", "SystemExit: it called sys.exit(3)"),
        ("raise SystemExit\n", "SystemExit: it called sys.exit(None)"),
        ("raise GeneratorExit\n", "GeneratorExit"),
        ("class Stop(BaseException):\n    pass\nraise Stop('halt')\n", "Stop: halt"),
    ],
)
def test_a_plugin_that_exits_on_import_breaks_only_itself(
    fake_dist, monkeypatch, caplog, source: str, error: str
) -> None:
    fake_dist("gym-exit", "0.4", plugins={"exit": "gym_exit"}, modules={"gym_exit": source})
    fake_dist("gym-a", envs={"a": "gym_a:A"})
    only(monkeypatch, "gym-exit", "gym-a")
    registry = Registry()
    assert [spec.name for spec in registry.list()] == ["a"]
    (plugin,) = registry.plugins
    assert (plugin.distribution, plugin.version, plugin.error) == ("gym-exit", "0.4", error)
    assert "gym-exit:exit (gym_exit) failed to load and is skipped: " + error in caplog.text


def test_a_hook_that_exits_breaks_only_itself(fake_dist, monkeypatch) -> None:
    fake_dist("gym-exit", plugins={"exit": "gym_exit"}, modules={"gym_exit": EXIT_IN_HOOK})
    fake_dist("gym-a", envs={"a": "gym_a:A"})
    only(monkeypatch, "gym-exit", "gym-a")
    registry = Registry()
    assert [spec.name for spec in registry.list()] == ["a", "before_exit"]
    assert registry.problems == [
        "plugin gym-exit:exit failed in swift_gym_register_envs: SystemExit: it called sys.exit(3)"
    ]


def test_an_env_module_that_exits_is_an_env_load_error(fake_dist, monkeypatch) -> None:
    fake_dist(
        "gym-exit",
        "2.0",
        envs={"quitter": "gym_quitter:Env"},
        modules={"gym_quitter": "import sys\nsys.exit('no GPU')\n"},
    )
    only(monkeypatch, "gym-exit")
    registry = Registry()
    for _ in range(2):  # the failure is kept, not retried into another exit
        with pytest.raises(EnvLoadError) as caught:
            registry.make("quitter")
        assert caught.value.distribution == "gym-exit"
        assert "SystemExit: it called sys.exit('no GPU')" in str(caught.value)
        assert "SWIFT_GYM_DISABLE_PLUGINS=gym-exit" in str(caught.value)


def test_ctrl_c_while_a_plugin_loads_still_stops_the_program(
    fake_dist, monkeypatch, caplog
) -> None:
    fake_dist(
        "gym-ctrl-c",
        plugins={"ctrl_c": "gym_ctrl_c"},
        modules={"gym_ctrl_c": "raise KeyboardInterrupt\n"},
    )
    only(monkeypatch, "gym-ctrl-c")
    with pytest.raises(KeyboardInterrupt):
        Registry()
    assert "interrupted while loading swift-gym plugin gym-ctrl-c:ctrl_c" in caplog.text


def test_misspelt_and_unmarked_hooks_are_reported(fake_dist, monkeypatch, caplog) -> None:
    fake_dist("gym-typo", "1.1", plugins={"typo": "gym_typo"}, modules={"gym_typo": MISSPELT})
    fake_dist("gym-none", plugins={"none": "gym_none"}, modules={"gym_none": NO_HOOK})
    only(monkeypatch, "gym-typo", "gym-none")
    registry = Registry()
    assert registry.list() == []
    plugins = {plugin.distribution: plugin for plugin in registry.plugins}
    typo = plugins["gym-typo"]
    assert typo.error is None and not typo.ok
    assert typo.problems == (
        "swift_gym_register_env is not a swift-gym hook, so it is never called; "
        "did you mean swift_gym_register_envs?",
        "swift_gym_register_rewards is not marked @swift_gym.hookimpl, so it is never called",
    )
    assert plugins["gym-none"].problems == (
        "it implements no swift-gym hook "
        "(the hooks are swift_gym_register_envs, swift_gym_register_rewards)",
    )
    assert "gym-typo:typo (gym_typo): swift_gym_register_env is not a swift-gym hook" in (
        caplog.text
    )


def test_a_correct_plugin_has_no_problems(fake_dist, monkeypatch) -> None:
    fake_dist("gym-slow", plugins={"slow": "gym_slow"}, modules={"gym_slow": SLOW})
    only(monkeypatch, "gym-slow")
    monkeypatch.setenv("SWIFT_GYM_SLOW_PLUGIN_SECONDS", "inf")
    (plugin,) = Registry().plugins
    assert plugin.ok and plugin.problems == ()


def test_a_slow_plugin_is_timed_and_named(fake_dist, monkeypatch, caplog) -> None:
    fake_dist("gym-slow", "3.0", plugins={"slow": "gym_slow"}, modules={"gym_slow": SLOW})
    only(monkeypatch, "gym-slow")
    monkeypatch.setenv("SWIFT_GYM_SLOW_PLUGIN_SECONDS", "0.05")
    with caplog.at_level(logging.WARNING, logger="swift_gym"):
        (plugin,) = Registry().plugins
    assert plugin.load_seconds is not None and plugin.load_seconds >= 0.2
    assert "swift-gym plugin gym-slow:slow took 0." in caplog.text
    assert "SWIFT_GYM_DISABLE_PLUGINS=gym-slow" in caplog.text
    assert "SWIFT_GYM_SLOW_PLUGIN_SECONDS=0.05" in caplog.text


SLOW_HOOK = """
    import time
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        time.sleep(0.2)
        register("slow_env", "gym_a:A")
"""


def test_a_slow_hook_is_named(fake_dist, monkeypatch, caplog) -> None:
    fake_dist(
        "gym-slow-hook", plugins={"slow": "gym_slow_hook"}, modules={"gym_slow_hook": SLOW_HOOK}
    )
    only(monkeypatch, "gym-slow-hook")
    monkeypatch.setenv("SWIFT_GYM_SLOW_PLUGIN_SECONDS", "0.05")
    with caplog.at_level(logging.WARNING, logger="swift_gym"):
        assert [spec.name for spec in Registry().list()] == ["slow_env"]
    assert "swift-gym plugin gym-slow-hook:slow took 0." in caplog.text
    assert " s in swift_gym_register_envs, which every swift-gym command" in caplog.text
    assert "to import" not in caplog.text  # its import is quick
    assert "SWIFT_GYM_DISABLE_PLUGINS=gym-slow-hook" in caplog.text


def test_a_plugin_under_the_threshold_is_not_named(fake_dist, monkeypatch, caplog) -> None:
    fake_dist("gym-slow", plugins={"slow": "gym_slow"}, modules={"gym_slow": SLOW})
    only(monkeypatch, "gym-slow")
    monkeypatch.setenv("SWIFT_GYM_SLOW_PLUGIN_SECONDS", "not a number")
    Registry()  # the default, 1 s
    assert "took" not in caplog.text
    assert "SWIFT_GYM_SLOW_PLUGIN_SECONDS='not a number' is not a number of seconds" in (
        caplog.text
    )


@pytest.fixture
def many(fake_dist, monkeypatch) -> Registry:
    fake_dist("gym-many", plugins={"many": "gym_many"}, modules={"gym_many": MANY})
    only(monkeypatch, "gym-many")
    return Registry()


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("level_01234x", "level_01234"),  # typo at the end
        ("lvel_01234", "level_01234"),  # typo at the start
        ("LEVEL_99999", "level_99999"),  # case
        ("gym-mny:level_00042", "level_00042"),  # a misspelt distribution
    ],
)
def test_an_unknown_name_among_100k_is_short_and_helpful(
    many: Registry, typo: str, meant: str
) -> None:
    with pytest.raises(UnknownEnvError) as caught:
        many.get_env_class(typo)
    message = str(caught.value)
    assert len(message) < 1000, len(message)
    assert f"Did you mean {meant!r}?" in message
    assert "level_00000, level_00001," in message
    assert "and 99,980 more (swift-gym list shows them all)." in message


def test_env_names_listing_and_suggestions() -> None:
    names = EnvNames(["frozen_lake", "maze", "frozen_lake", "sokoban"])
    assert list(names) == ["frozen_lake", "maze", "sokoban"]
    assert names.listing() == "frozen_lake, maze, sokoban"
    assert names.listing(limit=1) == "frozen_lake and 2 more"
    assert names.closest("frozen_lak") == ["frozen_lake"]
    assert names.closest("tetris") == []
    assert EnvNames([]).listing() == "" and EnvNames([]).closest("x") == []
    assert names.closest("frozen_lake" * 3) == []  # too long to be 60% alike
    assert names.closest("x" * 50_000_000) == []  # a huge value from a row: no work at all
    assert EnvNames(["ab"]).closest("abc") == ["ab"]  # the bound keeps every possible match


def test_many_env_entry_points_of_one_distribution_read_its_metadata_once(
    fake_dist, monkeypatch
) -> None:
    fake_dist("gym-levels", "0.3", envs={f"level_{i:03d}": "gym_levels:Level" for i in range(300)})
    only(monkeypatch, "gym-levels")
    reads = []
    metadata = importlib.metadata.Distribution.metadata

    def counted(self):
        reads.append(self)
        return metadata.fget(self)

    monkeypatch.setattr(importlib.metadata.Distribution, "metadata", property(counted))
    specs = Registry().list()
    assert len(specs) == 300 and {(s.distribution, s.version) for s in specs} == {
        ("gym-levels", "0.3")
    }
    # once or so per distribution that has envs (gym-levels, and swift-gym's own openenv),
    # never once per env (300)
    assert len(reads) <= 5, len(reads)


def test_contain_lets_sigterm_and_ctrl_c_through_but_not_a_plugins_exit() -> None:
    from swift_gym.plugins import Terminated, contain

    contain(SystemExit(3), "importing a plugin")  # a plugin's sys.exit(): contained
    for stop in (Terminated(15), KeyboardInterrupt()):
        with pytest.raises(type(stop)):
            contain(stop, "importing a plugin")
    assert Terminated(15).code == 143
