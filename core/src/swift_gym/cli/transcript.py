"""How a chat turn looks in the terminal, shared by `play` and `replay`.

Texts the model reads or writes are printed verbatim: rich markup and highlighting are off, so
`[brackets]` and tags show exactly as they are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rich.text import Text

from .console import stdout


def section(title: str, text: str | None) -> None:
    """A titled rule, then `text` exactly as the model sees it."""
    out = stdout()
    out.rule(Text(title, style="bold"), align="left", style="dim")
    out.print(Text(text or ""), markup=False, highlight=False, soft_wrap=True)


def step_note(reward: Any, done: bool, action: Any, info: Mapping[str, Any]) -> None:
    """One dim line with what the env made of a reply: reward, done, parsed action, info."""
    note = f"reward {reward}, done {str(bool(done)).lower()}"
    if action is not None:
        note += f", action {action}"
    stdout().print(Text(f"[{note}]  info: {json.dumps(info, default=str)}", style="dim"))
