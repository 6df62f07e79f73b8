"""The one seam where swift-gym reaches into ms-swift's trainers: which trainer built a scheduler.

ms-swift 4.6 hands a multi-turn scheduler neither its trainer nor the training step (it passes
`max_turns`, `tokenizer`, `template` and `gym_env`). The trajectory files need the step and the
rank, and the context check needs the colocate engine: all the trainer's. ms-swift's trainers
build their scheduler in `_prepare_scheduler` (`RolloutTrainerMixin` for `swift rlhf`,
`MegatronRolloutMixin` for `megatron rlhf`), so when ms-swift imports either module (the
start-up hook watches both), swift-gym wraps that method: once it has run, the scheduler it built
is told its trainer (`attach_trainer`). Pinned to ms-swift 4.6: tests/swift/test_trajectories.py
calls the real method and checks the step and rank reach the records, and test_training.py
checks them from a real `swift rlhf` run. A trainer that builds its scheduler elsewhere (Ray's
Megatron trainers) leaves it without one: its records have no step.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

CLASSES = {
    "swift.rlhf_trainers.rollout_mixin": "RolloutTrainerMixin",
    "swift.megatron.trainers.rollout_mixin": "MegatronRolloutMixin",
}
"""ms-swift's modules, and the class in each whose `_prepare_scheduler` builds the scheduler."""
MODULES = tuple(CLASSES)


def wrap_prepare_scheduler(module: ModuleType) -> None:
    """Wrap `_prepare_scheduler` of the trainer class `module` defines (once). Only that
    class is read: the module's other names may be lazy imports (vllm) that touching loads."""
    trainer_class = module.__dict__.get(CLASSES.get(module.__name__, ""))
    original = getattr(trainer_class, "__dict__", {}).get("_prepare_scheduler")
    if original is None or getattr(original, "_swift_gym_wrapped", False):
        return
    trainer_class._prepare_scheduler = _wrapped(original)  # type: ignore[union-attr]


def _wrapped(original: Any) -> Any:
    @functools.wraps(original)
    def _prepare_scheduler(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        scheduler = getattr(self, "multi_turn_scheduler", None)
        attach = getattr(scheduler, "attach_trainer", None)
        if callable(attach):
            attach(self)
        return result

    _prepare_scheduler._swift_gym_wrapped = True  # type: ignore[attr-defined]
    return _prepare_scheduler
