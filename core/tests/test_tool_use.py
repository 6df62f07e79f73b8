"""Which envs take tools: declared at registration or in the class body, read without import.

`EnvSpec.tool_use` is what `swift-gym list` shows (its tools column, `--tools`) and what the
catalogue records; these tests pin where it comes from, on fake distributions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from swift_gym import Env
from swift_gym.registry import Registry
from swift_gym.tools.use import TAKES_TOOLS, TOOL_USES

pytestmark = pytest.mark.usefixtures("clean_plugin_env")

FakeDist = Callable[..., Path]

DECLARING_MODULE = """
    from typing import ClassVar

    from swift_gym import Env


    class Base(Env):
        tool_use = "opt-in"

        async def reset(self, request=None):
            return "", {}, ""

        async def step(self, messages):
            return "", 0.0, True, {}


    class Annotated(Base):
        '''Declares in its body, with an annotation.'''

        tool_use: ClassVar[str] = "always"


    class Inherits(Base):
        '''Declares nothing in its own body.'''


    class Misspelt(Base):
        tool_use = "sometimes"
"""

FAMILY_HOOK = """
    import swift_gym


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        register("fam.text", "gym_tools:Inherits", tool_use="no")
        register("fam.tools", "gym_tools:Inherits", tool_use="varies")
        register("fam.plain", "gym_tools:Inherits")
        register("fam.wrong", "gym_tools:Inherits", tool_use="yes please")
"""


def registry(fake_dist: FakeDist, monkeypatch: pytest.MonkeyPatch) -> Registry:
    fake_dist(
        "gym-tools",
        envs={
            "base": "gym_tools:Base",
            "annotated": "gym_tools:Annotated",
            "inherits": "gym_tools:Inherits",
            "misspelt": "gym_tools:Misspelt",
        },
        modules={"gym_tools": DECLARING_MODULE},
    )
    fake_dist("gym-family", plugins={"family": "gym_family"}, modules={"gym_family": FAMILY_HOOK})
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "gym-tools,gym-family")
    return Registry()


def test_an_entry_points_class_body_declares_it_read_without_importing(
    fake_dist: FakeDist, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = {spec.name: spec for spec in registry(fake_dist, monkeypatch).list()}
    assert specs["base"].tool_use == "opt-in"
    assert specs["annotated"].tool_use == "always"
    # only the class's own body is read: a base class's declaration needs importing
    assert specs["inherits"].tool_use is None
    assert specs["misspelt"].tool_use is None  # not one of TOOL_USES: declares none
    assert "gym_tools" not in sys.modules


def test_a_hook_plugins_registration_declares_it(
    fake_dist: FakeDist, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = registry(fake_dist, monkeypatch)
    specs = {spec.name: spec for spec in found.list()}
    assert specs["fam.text"].tool_use == "no"
    assert specs["fam.tools"].tool_use == "varies"
    # the registration says nothing, the class's own body neither
    assert specs["fam.plain"].tool_use is None
    assert specs["fam.wrong"].tool_use is None
    (problem,) = [p for p in found.problems if "fam.wrong" in p]
    assert "tool_use='yes please'" in problem and "'opt-in'" in problem
    assert "gym_tools" not in sys.modules


def test_takes_tools_is_always_opt_in_or_varies(
    fake_dist: FakeDist, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = {spec.name: spec for spec in registry(fake_dist, monkeypatch).list()}
    taking = {name for name, spec in specs.items() if spec.takes_tools}
    assert taking == {"base", "annotated", "fam.tools"}
    assert set(TOOL_USES) - {"no"} == TAKES_TOOLS


OBJECT_HOOK = """
    import swift_gym
    from gym_tools import Inherits


    @swift_gym.hookimpl
    def swift_gym_register_envs(register):
        register("object", Inherits)
"""


def test_a_class_registered_as_an_object_is_asked_itself_bases_included(
    fake_dist: FakeDist, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dist("gym-tools", modules={"gym_tools": DECLARING_MODULE})
    fake_dist("gym-object", plugins={"object": "gym_object"}, modules={"gym_object": OBJECT_HOOK})
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "gym-object")
    (spec,) = Registry().list()
    assert spec.tool_use == "opt-in"  # Inherits gets it from Base once imported


def test_the_env_base_class_declares_nothing() -> None:
    assert Env.tool_use is None


def test_a_package_that_imports_the_class_from_a_submodule_is_read_there(
    fake_dist: FakeDist, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `swift-gym new` bakes a package: `__init__` does `from .env import GuessEnv`."""
    fake_dist(
        "gym-baked",
        envs={"baked": "gym_baked:GuessEnv"},
        modules={
            "gym_baked.__init__": "from .env import GuessEnv as GuessEnv\n",
            "gym_baked.env": DECLARING_MODULE.replace(
                "class Annotated(Base)", "class GuessEnv(Base)"
            ),
        },
    )
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "gym-baked")
    (spec,) = Registry().list()
    assert spec.tool_use == "always"
    assert spec.description == "Declares in its body, with an annotation."
    assert "gym_baked" not in sys.modules
