"""The Ray placement's settings: the operator's variables and the env classes' declarations.
No Ray here: these run without it (tests/ray plays envs on a real cluster)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import ClassVar

import pytest

from swift_gym import Env
from swift_gym.placement.ray.settings import (
    ADDRESS_VARIABLE,
    ENVS_VARIABLE,
    FORWARDED,
    ActorShape,
    RaySettingError,
    address_from_environ,
    shape_of,
)


class Plain(Env):
    async def reset(self, request=None):  # type: ignore[no-untyped-def]
        return "", {}, ""

    async def step(self, messages):  # type: ignore[no-untyped-def]
        return "", 0.0, True, {}


class Sandboxed(Plain):
    ray_resources: ClassVar[dict[str, float]] = {"CPU": 2, "sandbox": 1, "memory": 2**30}
    ray_episodes: ClassVar[int] = 4


def test_the_address_is_the_operators_variable_and_blank_is_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ADDRESS_VARIABLE, raising=False)
    assert address_from_environ() is None
    monkeypatch.setenv(ADDRESS_VARIABLE, "  ")
    assert address_from_environ() is None
    monkeypatch.setenv(ADDRESS_VARIABLE, " ray://head:10001 ")
    assert address_from_environ() == "ray://head:10001"


def test_an_env_holds_one_cpu_and_plays_one_episode_per_actor_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENVS_VARIABLE, raising=False)
    shape = shape_of("plain", Plain)
    assert shape == ActorShape((("CPU", 1.0),), 1)
    assert shape.options() == {"num_cpus": 1.0}


def test_the_class_declares_cpus_memory_and_custom_resources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENVS_VARIABLE, raising=False)
    shape = shape_of("sandboxed", Sandboxed)
    assert shape.episodes == 4
    assert shape.options() == {"num_cpus": 2.0, "memory": 2**30, "resources": {"sandbox": 1.0}}


def test_actors_get_the_env_side_settings_of_this_process_and_no_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in FORWARDED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SWIFT_GYM_MCP_SERVERS", '{"calc": {"url": "http://h/mcp", "headers": '
                       '{"Authorization": "Bearer s3cret"}}}')  # fmt: skip
    monkeypatch.setenv("SWIFT_GYM_SANDBOX_LIMITS", '{"wall_seconds": 5}')
    monkeypatch.setenv(ADDRESS_VARIABLE, "auto")  # an actor never places envs itself
    monkeypatch.setenv("SWIFT_GYM_TRAJECTORIES", "/tmp/t")  # the caller's files
    monkeypatch.setenv("SWIFT_GYM_API_KEY", "client-key")  # a client's, not an env's
    shape = shape_of("plain", Plain)
    assert shape.options()["runtime_env"] == {
        "env_vars": {
            "SWIFT_GYM_MCP_SERVERS": '{"calc": {"url": "http://h/mcp", "headers": '
            '{"Authorization": "Bearer s3cret"}}}',
            "SWIFT_GYM_SANDBOX_LIMITS": '{"wall_seconds": 5}',
        }
    }
    assert "s3cret" not in repr(shape) and "s3cret" not in str(shape)
    monkeypatch.setenv("SWIFT_GYM_OPENENV_TOKENS", "gpu-box:8100=GYM_TOKEN, [::1]=UNSET_ONE")
    monkeypatch.setenv("GYM_TOKEN", "t0ken")
    monkeypatch.delenv("UNSET_ONE", raising=False)
    monkeypatch.setenv("OTHER_SECRET", "not-named")
    env_vars = shape_of("plain", Plain).options()["runtime_env"]["env_vars"]
    assert env_vars["GYM_TOKEN"] == "t0ken"  # named by the mapping: an openenv env needs it
    assert "UNSET_ONE" not in env_vars and "OTHER_SECRET" not in env_vars
    assert env_vars["SWIFT_GYM_OPENENV_TOKENS"] == "gpu-box:8100=GYM_TOKEN, [::1]=UNSET_ONE"
    for name in FORWARDED:
        monkeypatch.delenv(name, raising=False)
    assert "runtime_env" not in shape_of("plain", Plain).options()


@pytest.mark.parametrize(
    "mapping",
    [
        "",
        "gpu-box:8100=GYM_TOKEN, [::1]=LOCAL",
        " a=ONE ,, b:1=TWO ,c=ONE",
        "gpu-box=",  # malformed from here on: no token variable travels
        "gpu-box=NOT A NAME",
        "=GYM_TOKEN",
        "gpu-box:8100=GYM_TOKEN,just-a-host",
    ],
)
def test_the_forwarded_token_variables_are_the_ones_the_openenv_env_reads(mapping: str) -> None:
    """Placement sits below `remote`, so it finds the mapping's variable names on its own; for
    every mapping of the right form they are the ones `remote.tokens` reads."""
    from swift_gym.placement.ray.settings import TOKENS_VARIABLE, _token_variables
    from swift_gym.remote.tokens import TOKENS_VARIABLE as READ_BY_THE_ENV
    from swift_gym.remote.tokens import TokenSetupError, parse_tokens

    assert TOKENS_VARIABLE == READ_BY_THE_ENV
    try:
        expected = set(parse_tokens(mapping).values())
    except TokenSetupError:
        expected = set()
    assert set(_token_variables(mapping)) == expected


def test_the_operator_overrides_per_env_name(monkeypatch: pytest.MonkeyPatch) -> None:
    override = {"sandboxed": {"resources": {"CPU": 0.5}}, "plain": {"episodes": 8}}
    monkeypatch.setenv(ENVS_VARIABLE, json.dumps(override))
    assert shape_of("sandboxed", Sandboxed) == ActorShape((("CPU", 0.5),), 4)
    assert shape_of("plain", Plain) == ActorShape((("CPU", 1.0),), 8)
    assert shape_of("other", Sandboxed).episodes == 4  # another name: the class's own


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("{not json", "is not JSON"),
        ('["plain"]', "an object of env names"),
        ('{"plain": {"cpus": 1}}', "unknown keys ['cpus']"),
        ('{"plain": {"episodes": 0}}', "not a whole number from 1"),
        ('{"plain": {"episodes": true}}', "not a whole number from 1"),
        ('{"plain": {"resources": {"CPU": -1}}}', "not an amount >= 0"),
        ('{"plain": {"resources": {"CPU": "1"}}}', "not an amount >= 0"),
        ('{"plain": {"resources": {"a b": 1}}}', "is no resource name"),
        ('{"plain": {"resources": [1]}}', "a mapping of resource names"),
    ],
)
def test_a_wrong_override_says_what_is_wrong(
    monkeypatch: pytest.MonkeyPatch, value: str, says: str
) -> None:
    monkeypatch.setenv(ENVS_VARIABLE, value)
    with pytest.raises(RaySettingError, match=None) as caught:
        shape_of("plain", Plain)
    assert says in str(caught.value)


def test_a_wrong_declaration_names_the_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVS_VARIABLE, raising=False)

    class Wrong(Plain):
        ray_episodes: ClassVar[int] = 0

    with pytest.raises(RaySettingError, match=r"Wrong\.ray_episodes"):
        shape_of("wrong", Wrong)


def test_the_setting_without_ray_installed_says_how_to_install_it() -> None:
    probe = (
        "import sys; sys.modules['ray'] = None\n"  # import ray raises ImportError
        "from swift_gym.placement.ray.cluster import RayPlacement\n"
        "try:\n"
        "    RayPlacement('127.0.0.1:6379').connect()\n"
        "except Exception as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.startswith("RaySettingError"), result.stderr
    assert 'pip install "./core[ray]" in a clone of swift-gym, or pip install "ray>=2.40"' in (
        " ".join(result.stdout.split())
    )
