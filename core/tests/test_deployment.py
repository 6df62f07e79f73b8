"""`Env.deployment`: the deployment traits, grouped off the playing contract, and the older
spelling (a trait as its own class attribute) still honoured by every reader. Served end to end:
tests/test_serve_isolation.py (`never_blocks = True`) and tests/test_serve_operator_envs.py."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from swift_gym import Deployment, Env
from swift_gym.deployment import deployment_of
from swift_gym.placement.ray.settings import shape_of
from swift_gym.testing.blocking_calls import declares_never_blocks


class Plain(Env):
    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        return "", {}, ""

    async def step(self, messages: Any) -> tuple[str, float, bool, dict[str, Any]]:
        return "", 0.0, True, {}


class Grouped(Plain):
    deployment = Deployment(never_blocks=True, ray_resources={"CPU": 2}, ray_episodes=4)


class OlderSpelling(Plain):
    """An env package written before the grouping: each trait its own class attribute."""

    never_blocks: ClassVar[bool] = True
    uses_operator_services: ClassVar[bool] = True
    ray_episodes: ClassVar[int] = 8


class PureComputing:
    """A mixin, not an env, that says its games never block (Gymnasium's TabularEnv did so)."""

    never_blocks = True


class MixedIn(PureComputing, Plain):
    pass


class OneMore(OlderSpelling):
    deployment = Deployment(ray_episodes=2)  # its own body's grouped traits replace all five


class OneFlatOverride(Grouped):
    ray_episodes = 1


def test_an_env_that_declares_nothing_has_the_safe_defaults() -> None:
    assert Plain.deployment == Env.deployment == Deployment()
    assert Deployment().ray_resources == {"CPU": 1} and Deployment().ray_episodes == 1
    assert not declares_never_blocks(Plain)


def test_the_older_attributes_are_folded_into_deployment_and_every_reader_honours_them() -> None:
    assert OlderSpelling.deployment == Deployment(
        never_blocks=True, uses_operator_services=True, ray_episodes=8
    )
    assert deployment_of(OlderSpelling) == OlderSpelling.deployment
    assert declares_never_blocks(OlderSpelling)  # the conformance kit's check and serve's `auto`
    assert shape_of("older", OlderSpelling).episodes == 8  # Ray's actors
    assert shape_of("grouped", Grouped).resources == (("CPU", 2.0),)
    assert shape_of("grouped", Grouped).episodes == 4


def test_traits_resolve_along_the_mro_as_plain_attributes_did() -> None:
    assert MixedIn.deployment.never_blocks  # from a mixin that is no Env
    assert OneMore.deployment == Deployment(ray_episodes=2)  # its own grouped form wins
    assert OneFlatOverride.deployment == Deployment(
        never_blocks=True, ray_resources={"CPU": 2}, ray_episodes=1
    )
    assert Grouped.deployment.ray_episodes == 4  # a subclass's override leaves the base alone


def test_a_class_that_is_no_env_is_read_by_its_attributes() -> None:
    class Factory:
        reaches_network = True

    assert deployment_of(Factory) == Deployment(reaches_network=True)
    assert deployment_of(object) == Deployment()


def test_a_deployment_that_is_not_one_is_refused_naming_the_class() -> None:
    with pytest.raises(TypeError, match=r"Wrong\.deployment must be a swift_gym\.Deployment"):

        class Wrong(Plain):
            deployment = ("never_blocks",)  # type: ignore[assignment]
