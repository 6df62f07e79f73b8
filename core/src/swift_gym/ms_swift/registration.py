"""Fills ms-swift's registries in place: envs, multi-turn schedulers, reward functions; and
tells a scheduler which trainer built it (`trainer_seam`).

Called right after ms-swift imports each registry module (through the start-up hook) or by
`import swift_gym.swift`. Entries that ms-swift or an `--external_plugins` file already put in a
registry are never replaced. It never raises: a failure is logged and ms-swift goes on without
swift-gym's entries.
"""

from __future__ import annotations

import functools
import logging
from types import ModuleType
from typing import Any

logger = logging.getLogger("swift_gym")

SCHEDULER_NAME = "swift_gym"


def fill_registry(module: ModuleType) -> None:
    """Fill the registry that `module` (one of ms-swift's) defines."""
    from .trainer_seam import MODULES, wrap_prepare_scheduler

    fillers = {
        "swift.rollout.gym_env": fill_envs,
        "swift.rollout.multi_turn": fill_multi_turns,
        "swift.rewards.orm": fill_orms,
        **dict.fromkeys(MODULES, wrap_prepare_scheduler),
    }
    filler = fillers.get(module.__name__)
    if filler is None:
        return
    try:
        filler(module)
    except KeyboardInterrupt:
        raise
    except BaseException:  # never break ms-swift's import, not even with a plugin's sys.exit()
        logger.exception("swift-gym could not register into %s", module.__name__)


def _add(registry: dict[str, Any], name: str, value: Any) -> None:
    if name not in registry:
        registry[name] = value


def fill_envs(gym_env: ModuleType) -> None:
    """One factory per env name, and per `distribution:name`, into `gym_env.envs`."""
    from ..registry import default_registry
    from .factories import EnvFactory

    specs = default_registry().list()
    for spec in specs:
        _add(gym_env.envs, spec.qualified_name, EnvFactory(spec.qualified_name))
    for name in sorted({spec.name for spec in specs}):  # an ambiguous one raises when used
        _add(gym_env.envs, name, EnvFactory(name))


def fill_multi_turns(multi_turn: ModuleType) -> None:
    """The `swift_gym` scheduler, and a did-you-mean for unknown `--gym_env` names."""
    from .scheduler import scheduler_class

    _add(multi_turn.multi_turns, SCHEDULER_NAME, scheduler_class(multi_turn.GYMScheduler))
    _explain_unknown_envs(multi_turn.GYMScheduler)


def fill_orms(orm: ModuleType) -> None:
    """swift-gym's reward functions, and those env packages register, into `orm.orms`."""
    from .rewards import reward_functions

    for name, reward_class in reward_functions(orm.ORM).items():
        _add(orm.orms, name, reward_class)


def _explain_unknown_envs(scheduler_class: type) -> None:
    """Make `GYMScheduler._create_env` fail with swift-gym's did-you-mean for unknown names."""
    original = scheduler_class.__dict__.get("_create_env")
    if original is None or getattr(original, "_swift_gym_wrapped", False):
        return

    @functools.wraps(original)
    def _create_env(self: Any, env_config: Any) -> Any:
        from swift.rollout.gym_env import envs

        from ..errors import UnknownEnvError

        config = env_config if isinstance(env_config, dict) else {}
        name = config.get("name", self.gym_env_name)
        try:
            known = name in envs
        except TypeError:  # an unhashable name from a dataset row
            known = False
        if not known:
            if name is None and "name" in config:
                raise UnknownEnvError(None, _names_of(envs), explicit_null=True)
            raise UnknownEnvError(
                name if isinstance(name, str) or name is None else repr(name), _names_of(envs)
            )
        return envs[name](env_config)  # what the original does, minus its `.get` on non-dicts

    _create_env._swift_gym_wrapped = True  # type: ignore[attr-defined]
    scheduler_class._create_env = _create_env  # type: ignore[attr-defined]


_known_names: tuple[int, int, Any] = (0, -1, None)


def _names_of(envs: dict[Any, Any]) -> Any:
    """ms-swift's env names as EnvNames, rebuilt only when the dict changed size, not per row."""
    global _known_names
    from ..env_names import EnvNames

    identity, size, names = _known_names
    if identity != id(envs) or size != len(envs) or names is None:
        names = EnvNames(sorted(key for key in envs if isinstance(key, str)))
        _known_names = (id(envs), len(envs), names)
    return names
