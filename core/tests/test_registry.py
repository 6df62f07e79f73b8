"""Discovery and lookup through the registry, on fake distributions read by importlib.metadata."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from swift_gym import AmbiguousEnvError, EnvLoadError, InvalidConfigError, UnknownEnvError
from swift_gym.registry import Registry

pytestmark = pytest.mark.usefixtures("clean_plugin_env")

FakeDist = Callable[..., Path]


def only(monkeypatch: pytest.MonkeyPatch, *distributions: str) -> None:
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", ",".join(distributions))


def test_listing_reads_metadata_only(counter_module, fake_dist: FakeDist, monkeypatch) -> None:
    fake_dist(
        "gym-counter",
        "2.1",
        envs={"counter": "gym_counter:CounterEnv"},
        modules={"gym_counter": counter_module},
        summary="Counts to a limit.",
    )
    only(monkeypatch, "gym-counter")
    (spec,) = Registry().list()
    assert (spec.name, spec.distribution, spec.version) == ("counter", "gym-counter", "2.1")
    assert spec.target == "gym_counter:CounterEnv"
    assert spec.qualified_name == "gym-counter:counter"
    assert spec.description == "Counts to a limit."
    assert "gym_counter" not in sys.modules


def test_class_is_imported_on_first_use_and_cached(
    counter_module, fake_dist: FakeDist, monkeypatch
) -> None:
    fake_dist(
        "gym-counter",
        envs={"counter": "gym_counter:CounterEnv"},
        modules={"gym_counter": counter_module},
    )
    only(monkeypatch, "gym-counter")
    registry = Registry()
    env_class = registry.get_env_class("counter")
    assert env_class.__name__ == "CounterEnv"
    assert registry.get_env_class("gym-counter:counter") is env_class
    assert registry.get_env_class("gym_counter:counter") is env_class  # normalised dist name


async def test_make_from_name_and_from_env_config(
    counter_module, fake_dist: FakeDist, monkeypatch
) -> None:
    fake_dist(
        "gym-counter",
        envs={"counter": "gym_counter:CounterEnv"},
        modules={"gym_counter": counter_module},
    )
    only(monkeypatch, "gym-counter")
    registry = Registry()
    env = registry.make("counter", limit=2)
    assert env.config.limit == 2
    env = registry.make({"name": "counter", "limit": 1, "seed": 3}, limit=5)
    assert (env.config.limit, env.config.seed, env.env_config["name"]) == (5, 3, "counter")
    await env.reset()
    assert (await env.step([]))[0] == "count 1"


def test_make_relabels_config_errors_with_the_registered_name(
    counter_module, fake_dist, monkeypatch
) -> None:
    fake_dist(
        "gym-counter",
        envs={"counter": "gym_counter:CounterEnv"},
        modules={"gym_counter": counter_module},
    )
    only(monkeypatch, "gym-counter")
    with pytest.raises(InvalidConfigError) as caught:
        Registry().make("counter", limit=0)
    assert str(caught.value).startswith("invalid env_config for env 'counter'")


def test_make_without_a_name_says_how_to_give_one(fake_dist, monkeypatch) -> None:
    only(monkeypatch)
    with pytest.raises(UnknownEnvError, match="no env name given"):
        Registry().make({"seed": 1})
    with pytest.raises(TypeError, match="env name or an env_config dict"):
        Registry().make(42)  # type: ignore[arg-type]


def test_unknown_name_lists_installed_and_suggests(fake_dist: FakeDist, monkeypatch) -> None:
    fake_dist("gym-counter", envs={"counter": "gym_counter:CounterEnv"})
    only(monkeypatch, "gym-counter")
    with pytest.raises(UnknownEnvError) as caught:
        Registry().get_env_class("countr")
    message = str(caught.value)
    assert "unknown env 'countr'. Did you mean 'counter'?" in message
    assert "Installed envs: counter." in message
    assert isinstance(caught.value, LookupError)


def test_unknown_name_with_nothing_installed_says_what_to_install(monkeypatch) -> None:
    only(monkeypatch)
    with pytest.raises(UnknownEnvError, match="No env is installed: install an env package"):
        Registry().get_env_class("frozen_lake")


@pytest.mark.parametrize("name", ["this:s", "os:system", "builtins:eval", "this", "../this"])
def test_names_from_data_never_import_anything(name: str, monkeypatch) -> None:
    only(monkeypatch)
    sys.modules.pop("this", None)
    with pytest.raises(UnknownEnvError):
        Registry().make({"name": name})
    assert "this" not in sys.modules


def test_a_broken_env_breaks_only_itself(counter_module, fake_dist: FakeDist, monkeypatch) -> None:
    fake_dist(
        "gym-broken",
        "0.3",
        envs={"broken": "gym_broken:BrokenEnv"},
        modules={"gym_broken": "raise RuntimeError('missing dependency foo')\n"},
    )
    fake_dist(
        "gym-counter",
        envs={"counter": "gym_counter:CounterEnv"},
        modules={"gym_counter": counter_module},
    )
    only(monkeypatch, "gym-broken", "gym-counter")
    registry = Registry()
    assert [spec.name for spec in registry.list()] == ["broken", "counter"]
    with pytest.raises(EnvLoadError) as caught:
        registry.get_env_class("broken")
    message = str(caught.value)
    assert "env 'broken' from gym-broken 0.3 failed to load (gym_broken:BrokenEnv)" in message
    assert "RuntimeError: missing dependency foo" in message
    assert "SWIFT_GYM_DISABLE_PLUGINS=gym-broken" in message
    with pytest.raises(EnvLoadError):  # the failure is cached, not retried
        registry.get_env_class("broken")
    assert registry.get_env_class("counter").__name__ == "CounterEnv"


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("gym_odd:NotAnEnv", "is not a subclass of swift_gym.Env"),
        ("gym_odd:missing", "AttributeError"),
        ("gym_nowhere:Env", "ModuleNotFoundError: No module named 'gym_nowhere'"),
    ],
)
def test_entry_points_that_name_no_env_class(fake_dist, monkeypatch, target, reason) -> None:
    fake_dist("gym-odd", envs={"odd": target}, modules={"gym_odd": "class NotAnEnv:\n    pass\n"})
    only(monkeypatch, "gym-odd")
    with pytest.raises(EnvLoadError, match=reason):
        Registry().get_env_class("odd")


def test_two_distributions_with_one_name(counter_module, fake_dist: FakeDist, monkeypatch) -> None:
    fake_dist("gym-a", envs={"maze": "gym_a:CounterEnv"}, modules={"gym_a": counter_module})
    fake_dist("gym-b", envs={"maze": "gym_b:CounterEnv"}, modules={"gym_b": counter_module})
    only(monkeypatch, "gym-a", "gym-b")
    registry = Registry()
    with pytest.raises(AmbiguousEnvError) as caught:
        registry.get_env_class("maze")
    message = str(caught.value)
    assert "registered by 2 distributions: gym-a, gym-b" in message
    assert "'gym-a:maze' or 'gym-b:maze'" in message
    assert registry.get_env_class("gym-b:maze").__module__ == "gym_b"
    assert registry.names() == ["gym-a:maze", "gym-b:maze"]
    with pytest.raises(UnknownEnvError):
        registry.get_env_class("gym-c:maze")


def test_load_and_disable_filters(fake_dist: FakeDist, monkeypatch) -> None:
    fake_dist("gym-a", envs={"a": "gym_a:A"})
    fake_dist("gym-b", envs={"b": "gym_b:B"})
    only(monkeypatch, "gym-a", "GYM_B")
    assert [spec.name for spec in Registry().list()] == ["a", "b"]
    monkeypatch.setenv("SWIFT_GYM_DISABLE_PLUGINS", "gym-b")
    assert [spec.name for spec in Registry().list()] == ["a"]
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "")
    assert Registry().list() == []


HOOK_PLUGIN = """
    import swift_gym
    from gym_counter import CounterEnv


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        for level in (1, 2, 3):
            register(f"counter-{level}", CounterEnv, description=f"level {level}")
        register("lazy", "gym_counter:CounterEnv")
"""


def test_hook_plugins_register_families_attributed_to_their_dist(
    counter_module, fake_dist, monkeypatch
) -> None:
    fake_dist("gym-counter", modules={"gym_counter": counter_module})
    fake_dist(
        "gym-family", "0.9", plugins={"family": "gym_family"}, modules={"gym_family": HOOK_PLUGIN}
    )
    only(monkeypatch, "gym-family")
    registry = Registry()
    specs = registry.list()
    assert [spec.name for spec in specs] == ["counter-1", "counter-2", "counter-3", "lazy"]
    assert {(spec.distribution, spec.version) for spec in specs} == {("gym-family", "0.9")}
    assert specs[1].description == "level 2"
    assert specs[0].target == "gym_counter:CounterEnv"
    assert registry.make("counter-2").config.limit == 3
    (plugin,) = registry.plugins
    assert (plugin.name, plugin.distribution, plugin.error) == (
        "gym-family:family",
        "gym-family",
        None,
    )


def test_a_hook_plugin_that_fails_to_import_is_recorded(fake_dist, monkeypatch, caplog) -> None:
    fake_dist(
        "gym-bad",
        "1.2",
        plugins={"bad": "gym_bad"},
        modules={"gym_bad": "import not_installed_anywhere\n"},
    )
    fake_dist("gym-a", envs={"a": "gym_a:A"})
    only(monkeypatch, "gym-bad", "gym-a")
    registry = Registry()
    assert [spec.name for spec in registry.list()] == ["a"]
    (plugin,) = registry.plugins
    assert plugin.distribution == "gym-bad" and plugin.version == "1.2"
    assert plugin.error == "ModuleNotFoundError: No module named 'not_installed_anywhere'"
    assert "gym-bad:bad" in caplog.text and "failed to load" in caplog.text


def test_a_disabled_hook_plugin_is_not_even_imported(fake_dist, monkeypatch) -> None:
    fake_dist(
        "gym-bad",
        plugins={"bad": "gym_bad"},
        modules={"gym_bad": "raise SystemExit('imported!')\n"},
    )
    monkeypatch.setenv("SWIFT_GYM_DISABLE_PLUGINS", "gym-bad")
    registry = Registry()
    assert "gym_bad" not in sys.modules
    assert all(plugin.distribution != "gym-bad" for plugin in registry.plugins)


RAISING_HOOK = """
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        register("early", "gym_raising:Early")
        raise KeyError("data file missing")
"""

BAD_NAMES_HOOK = """
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        register("has:colon", "x:Y")
        register("", "x:Y")
        register("fine", 42)
        register("twice", "x:A")
        register("twice", "x:B")
"""


def test_registration_problems_are_recorded_not_raised(fake_dist, monkeypatch) -> None:
    fake_dist(
        "gym-raising", plugins={"raising": "gym_raising"}, modules={"gym_raising": RAISING_HOOK}
    )
    fake_dist("gym-names", plugins={"names": "gym_names"}, modules={"gym_names": BAD_NAMES_HOOK})
    only(monkeypatch, "gym-raising", "gym-names")
    registry = Registry()
    assert [spec.name for spec in registry.list()] == ["early", "twice"]
    problems = "\n".join(registry.problems)
    assert (
        "gym-raising:raising failed in swift_gym_register_envs: KeyError: 'data file missing'"
        in problems
    )
    assert "invalid env name 'has:colon'" in problems
    assert "invalid env name ''" in problems
    assert "registers env 'fine' as 42" in problems
    assert "registers env 'twice' twice" in problems
    assert registry.list()[1].target == "x:A"
