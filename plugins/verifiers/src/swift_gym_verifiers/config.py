"""What a dataset row may choose for a verifiers env: which task of the taskset it plays."""

from __future__ import annotations

from pydantic import Field

from swift_gym import EnvConfig

MAX_INDEX = 10_000_000
"""The largest task index a row may ask for (an infinite taskset is read up to it)."""


class VerifiersConfig(EnvConfig):
    """A row picks one task: by its position in the taskset's `load()` order (`index`), else
    by `seed` (task `seed % n` of a taskset of n tasks; task `seed` of an infinite one, whose
    task `i` is its seed `i`), else the first.

    Nothing else comes from the row: the taskset's own config (its split, game, server URL,
    reward hooks by import path) is the operator's (`SWIFT_GYM_VERIFIERS_TASKSETS`), because
    verifiers' task data and taskset configs can name hosts, commands, files and modules.
    """

    index: int | None = Field(
        None,
        ge=0,
        le=MAX_INDEX,
        description="Which task of the taskset to play: its position in the taskset's order "
        "(default: picked by seed).",
    )
