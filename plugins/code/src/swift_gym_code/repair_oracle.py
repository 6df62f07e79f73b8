"""The oracle of code.repair: the task's fix (its patch reversed), as one `edit_file` call
whose old text occurs exactly once in the buggy file, then `submit`. It plays through the same
tools as a model, so its 1.0 shows the tools, the grader and the task all work."""

from __future__ import annotations

import json

from swift_gym import ToolCall
from swift_gym.tools.turns import assistant_message

from .repair.patches import apply_to_text, lines_of
from .repair.tasks import RepairTask


def reverse_edit(buggy: str, fixed: str) -> tuple[str, str]:
    """(old_text, new_text): the fewest whole lines around the difference, widened by context
    lines until old_text occurs exactly once in `buggy` (and is not empty)."""
    a, b = lines_of(buggy), lines_of(fixed)
    same = min(len(a), len(b))
    head = 0
    while head < same and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < same - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    context = 0
    while True:
        start = max(0, head - context)
        after = min(tail, context)
        old = "".join(a[start : len(a) - tail + after])
        new = "".join(b[start : len(b) - tail + after])
        if old and buggy.count(old) == 1:
            return old, new
        if start == 0 and after == tail:
            return buggy, fixed
        context += 1


def oracle_calls(task: RepairTask, pristine_text: str) -> list[dict[str, object]]:
    """The assistant messages of the oracle's two turns: the reverse edit, then `submit`."""
    buggy = apply_to_text(pristine_text, task.patch)
    old, new = reverse_edit(buggy, pristine_text)
    edit = ToolCall(
        "call_oracle_edit",
        "edit_file",
        json.dumps({"path": task.changed_file, "old_text": old, "new_text": new}),
    )
    submit = ToolCall("call_oracle_submit", "submit", "{}")
    return [assistant_message("", [edit]), assistant_message("", [submit])]
