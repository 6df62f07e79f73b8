"""sandbox.install(): TextArena modules get the episode's `random` and a quiet `print`, also
modules imported after an earlier install (a game's helpers load on first use)."""

from __future__ import annotations

import builtins
import random
import sys
import types

from swift_gym_textarena import sandbox


def fake_textarena_module(name: str) -> types.ModuleType:
    """A module under `textarena.` that binds `random` and uses the builtin `print`."""
    module = types.ModuleType(name)
    module.random = random
    sys.modules[name] = module
    return module


def test_a_module_imported_after_an_install_is_bound_by_the_next_one() -> None:
    first = fake_textarena_module("textarena.swift_gym_probe_first")
    try:
        assert sandbox.install() >= 1
        assert first.random is sandbox.RANDOM_PROXY and first.print is not builtins.print
        assert sandbox.install() == 0  # nothing imported since: nothing to bind
        later = fake_textarena_module("textarena.swift_gym_probe_later")
        assert sandbox.install() == 1
        assert later.random is sandbox.RANDOM_PROXY
    finally:
        sys.modules.pop("textarena.swift_gym_probe_first", None)
        sys.modules.pop("textarena.swift_gym_probe_later", None)


def test_the_proxy_draws_from_the_episode_generator_only_inside_an_episode() -> None:
    module = fake_textarena_module("textarena.swift_gym_probe_rng")
    try:
        sandbox.install()
        token = sandbox._episode_rng.set(random.Random(7))
        try:
            inside = [module.random.random() for _ in range(3)]
        finally:
            sandbox._episode_rng.reset(token)
        same = random.Random(7)
        assert inside == [same.random() for _ in range(3)]
        state = random.getstate()
        module.random.random()  # outside an episode: the real module's stream
        assert random.getstate() != state
    finally:
        sys.modules.pop("textarena.swift_gym_probe_rng", None)
