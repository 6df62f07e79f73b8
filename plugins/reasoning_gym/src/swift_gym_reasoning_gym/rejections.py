"""reasoning-gym's refusals of a config, as problems that name the fields to fix.

Its `validate()` methods check with bare `assert`s, some without a message
(`assert self.min_terms > 0`), and some constructors raise ValueError. The fields are found in
the failing line of reasoning-gym's source (`self.max_terms >= self.min_terms` names both) or
in the message; the reason is the message, or that line when there is none. Bounded: messages
are cut, and the traceback is only read, never printed.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Mapping
from typing import Any

MAX_REASON_CHARS = 300
_SELF_FIELD = re.compile(r"\bself\.([A-Za-z_][A-Za-z0-9_]*)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Problem = tuple[str, str, Any]
"""(model field, reason, value) of one thing reasoning-gym rejects."""


def _failing_line(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    for frame in reversed(frames):
        if "reasoning_gym" in frame.filename.replace("\\", "/") and frame.line:
            return frame.line.strip()
    return frames[-1].line.strip() if frames and frames[-1].line else ""


def rejection_problems(
    error: BaseException, task: str, fields: Mapping[str, str], config: Any
) -> list[Problem]:
    """Problems for `error`, raised by `task`'s dataclass or its `validate()`.

    `fields` maps dataclass fields to model fields (`seed` -> `dataset_seed`). A field named in
    the failing line counts before one only named in the message; with none, the problem is the
    whole config's.
    """
    message = str(error).strip()
    line = _failing_line(error)
    if isinstance(error, AssertionError):
        reason = message or f"reasoning-gym requires {line.removeprefix('assert ').strip()}"
    else:
        reason = f"{type(error).__name__}: {message}" if message else type(error).__name__
    reason = f"rejected by reasoning-gym's {task}: {reason}"[:MAX_REASON_CHARS]
    named = [name for name in _SELF_FIELD.findall(line) if name in fields]
    if not named:
        named = [word for word in _WORD.findall(message) if word in fields]
    ordered = list(dict.fromkeys(named))
    if not ordered:
        return [("", reason, None)]
    return [(fields[name], reason, getattr(config, fields[name], None)) for name in ordered]
