"""ms-swift `ORM` classes for swift-gym's reward functions (the registry is `swift_gym.rewards`).

`fill_orms` adds one class per registered reward to `swift.rewards.orm.orms`; a reward named as a
"module:attribute" string is imported the first time ms-swift calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..plugins import contain, describe_error
from ..rewards import RewardFunction, collect_rewards


def reward_functions(orm_base: type) -> dict[str, type]:
    """ms-swift `ORM` subclasses, one per reward function, named as registered."""
    return {name: _orm_class(orm_base, name, reward) for name, reward in collect_rewards().items()}


def _orm_class(orm_base: type, name: str, reward: RewardFunction | str) -> type:
    def __call__(self: Any, completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        function = self._function
        if function is None:
            from ..registry import _import_target

            try:
                function = _import_target(reward)  # type: ignore[arg-type]
            except BaseException as error:  # sys.exit() in a reward module: say whose it was
                contain(error, f"importing swift-gym reward {name!r} ({reward})")
                raise RuntimeError(
                    f"swift-gym reward {name!r} ({reward}) failed to import: "
                    f"{describe_error(error)}"
                ) from error
            type(self)._function = staticmethod(function)
        return list(function(completions, **kwargs))

    function = None if isinstance(reward, str) else reward
    doc = (getattr(function, "__doc__", None) or f"swift-gym reward {name!r}").strip()
    class_name = "".join(part.title() for part in name.split("_")) or "SwiftGymReward"
    namespace = {
        "__call__": __call__,
        "_function": None if function is None else staticmethod(function),
        "__doc__": doc,
        "__module__": __name__,
    }
    return type(class_name, (orm_base,), namespace)
