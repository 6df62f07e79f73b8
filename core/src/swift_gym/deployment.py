"""`Deployment`: what an env needs or risks where it runs, kept apart from how it plays.

Playing is `reset`, `step`, `tools` and the config; deployment is what the operator's side reads
to decide where and whether an episode runs: `swift-gym serve`'s placement and allow list, the
Ray actors' shape, the conformance kit's `never_blocks` check. An env class declares it once,
`deployment = Deployment(never_blocks=True)`, and the readers ask `deployment_of(env_class)`.

The older spelling, each trait as its own class attribute (`never_blocks = True`), still works:
`deployment_of` reads both, trait by trait along the class's MRO, and `Env.__init_subclass__`
stores the result as the class's `deployment`, so env packages written before the grouping (and
their mixins) are honoured unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any


def _one_cpu() -> Mapping[str, float]:
    return {"CPU": 1}


@dataclass(frozen=True)
class Deployment:
    """An env class's deployment traits (`Env.deployment`); every default is the safe one."""

    never_blocks: bool = False
    """True for an env whose reset, step and close only compute briefly and await: no sleep,
    no file, socket or subprocess call, no long computation. `swift-gym serve` then plays it on
    its own event loop (`--isolation auto`, the default), with no hop to a thread per call. The
    conformance kit's `never_blocks` check fails such an env when it makes a blocking call."""
    reaches_network: bool = False
    """True for an env that opens network connections its env_config can point anywhere (the
    `openenv` env): `swift-gym serve` plays one only when `--allow` names it, since a client's
    reset would make the server connect where the client says."""
    uses_operator_services: bool = False
    """True for an env that starts the operator's processes or connects to the operator's hosts
    (set up by the operator, never by its env_config: `mcp_tools` starts the MCP servers of
    `SWIFT_GYM_MCP_SERVERS`): `swift-gym serve` plays one only when `--allow` names it, since
    otherwise each client's reset would start them."""
    ray_resources: Mapping[str, float] = field(default_factory=_one_cpu)
    """What one Ray actor playing this env holds, in Ray's resource names (`CPU`, `GPU`,
    `memory` in bytes, custom ones such as `sandbox`), when envs are placed on Ray
    (`SWIFT_GYM_RAY_ADDRESS`). The operator may replace it per env name (`SWIFT_GYM_RAY_ENVS`)."""
    ray_episodes: int = 1
    """How many episodes of this env one Ray actor plays at once (they share `ray_resources`).
    More than one suits envs that mostly wait or compute briefly."""


TRAITS: tuple[str, ...] = tuple(f.name for f in fields(Deployment))
"""The traits' names, which are also the older class attributes that `Env` still reads."""


def deployment_of(env_class: type) -> Deployment:
    """The deployment traits of `env_class`, read as Python reads attributes: each trait from the
    first class in its MRO that declares it, either as a `deployment` of its own body or as a
    class attribute of the trait's name (`never_blocks = True`, the older spelling; the first
    wins when one body has both). A mixin that sets `never_blocks = True` counts, as it did when
    the traits were plain attributes, and so does a class that is no `Env` at all."""
    values: dict[str, Any] = {}
    for klass in env_class.__mro__:
        own = vars(klass)
        grouped = own[_DECLARED] if _DECLARED in own else own.get("deployment")
        if grouped is not None and not isinstance(grouped, Deployment):
            raise TypeError(
                f"{klass.__name__}.deployment must be a swift_gym.Deployment, "
                f"not {type(grouped).__name__}"
            )
        for name in TRAITS:
            if name not in values and name in own:
                values[name] = own[name]
            elif name not in values and grouped is not None:
                values[name] = getattr(grouped, name)
        if len(values) == len(TRAITS):
            break
    return Deployment(**values)


_DECLARED = "_declared_deployment"
"""Where `settle` keeps the `deployment` a class body wrote itself (None: it wrote none), since
`deployment` then holds what the class ends up with, inherited traits included."""


def settle(env_class: type) -> None:
    """Make `env_class.deployment` the traits it ends up with (`Env.__init_subclass__` calls it,
    so `cls.deployment` is always the answer, whatever spelling the class or its bases used)."""
    setattr(env_class, _DECLARED, vars(env_class).get("deployment"))
    env_class.deployment = deployment_of(env_class)  # type: ignore[attr-defined]
