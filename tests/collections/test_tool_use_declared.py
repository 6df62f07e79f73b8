"""What each shipped env declares about tools (`swift-gym list`'s tools column, the catalogue's)
is what its episodes do, all four env packages installed.

- `no`: its default episode offers no tools, and a config that asks for them is refused;
- `opt-in`: its default episode offers none, and the config switch its package documents
  (`action_format: tool`, or reasoning-gym's `tools: ["python"]`) makes it offer some;
- `always` and `varies` (`mcp_tools`, `openenv`): the class defines `tools()`; their tools
  come from the operator's MCP servers or the served env (core/tests/mcp and tests/openenv
  play them).

A new env that declares nothing fails here, so `list --tools` cannot miss a shipped env.
"""

from __future__ import annotations

import asyncio

import pytest
from shipped_envs import shipped_envs

import swift_gym
from swift_gym import Env, InvalidConfigError, offered_tools
from swift_gym.registry import default_registry

NEEDS_A_SERVICE = {"mcp_tools", "openenv"}
ASKING = {
    # ms-swift's own words and reading have no tool: the tool needs swift-gym's
    "frozen_lake_ms_swift": {
        "action_format": "tool",
        "text_style": "swift_gym",
        "action_parsing": "first_tag",
    },
}
DEFAULTS = {
    "reasoning_gym.composite": {"datasets": [{"name": "chain_sum", "weight": 1, "config": {}}]},
}
"""Envs that have no default episode: the config that plays one."""


def asking_for_tools(name: str, cls: type[Env]) -> dict[str, object]:
    """The config fields that ask an env of this package for its tools."""
    if name in ASKING:
        return ASKING[name]
    fields = cls.config_model.model_fields
    if "action_format" in fields:
        return {"action_format": "tool"}
    if "tools" in fields:
        return {"tools": ["python"]}
    raise AssertionError(f"{cls.__name__}: no field that asks for tools")


async def offered(name: str, **config: object) -> list[str]:
    env = swift_gym.make({"name": name, "seed": 1, **DEFAULTS.get(name, {}), **config})
    try:
        await env.reset()
        return [tool["function"]["name"] for tool in offered_tools(env)]
    finally:
        await env.close()


def test_every_shipped_env_declares_its_tool_use() -> None:
    undeclared = [spec.name for spec in shipped_envs() if spec.tool_use is None]
    assert not undeclared
    assert len(shipped_envs()) == 171


@pytest.mark.parametrize("name", sorted(spec.name for spec in shipped_envs()))
def test_the_declaration_is_what_its_episodes_do(name: str) -> None:
    spec = default_registry().resolve(name)
    cls = default_registry().get_env_class(name)
    if name in NEEDS_A_SERVICE:
        assert spec.tool_use in {"always", "varies"}
        assert cls.tools is not Env.tools
        return
    assert spec.tool_use in {"no", "opt-in"}, spec.tool_use
    assert asyncio.run(offered(name)) == [], "a default episode offers no tools"
    if spec.tool_use == "opt-in":
        assert asyncio.run(offered(name, **asking_for_tools(name, cls)))
    elif "action_format" in cls.config_model.model_fields:
        with pytest.raises(InvalidConfigError):
            swift_gym.make({"name": name, "action_format": "tool"})
    else:
        assert cls.tools is Env.tools
