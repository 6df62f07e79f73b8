"""How a chat turn looks in the terminal, shared by `play` and `replay`.

Every text shown came from a model, a dataset or an env package, so it goes through `visible`:
controls and invisible characters escaped, blank texts labelled, `[brackets]` and tags shown as
they are (never read as rich markup). Newlines and tabs stay, so multi-line texts read as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import visible
from .console import stdout

INFO_KEYS_SHOWN = 400
"""Characters of `key=value` text an info line shows at most, before `… N more keys`."""
INFO_VALUE_SHOWN = 60
"""Characters of one info value shown at most."""


def section(title: str, text: Any) -> None:
    """A titled rule, then `text` exactly as the model sees it (made visible)."""
    out = stdout()
    out.rule(visible.rich(title, style="bold"), align="left", style="dim")
    out.print(visible.block(text))


def note(text: str, style: str = "dim") -> None:
    """A line about the transcript (not part of it), such as `same system prompt as ...`."""
    stdout().print(visible.rich(text, style=style))


def plural(count: Any, noun: str) -> str:
    """`1 turn`, `2 turns`, `0 turns`; a count that is not a number is shown as it is."""
    return f"{visible.brief(count, 20)} {noun}{'' if count == 1 else 's'}"


def number(value: Any) -> str:
    """A reward or a count, short: `0`, `0.25`, `1`."""
    return visible.brief(value, 30)


def step_note(reward: Any, done: Any, action: Any, info: Mapping[str, Any]) -> None:
    """What the env made of a reply, in two dim lines:
    `reward 0 · done no · action up · status ok`, then the other info keys as `key=value`."""
    head = [f"reward {number(reward)}", f"done {'yes' if done else 'no'}"]
    shown = {"status"}
    if action is not None:
        head.append(f"action {visible.brief(action, INFO_VALUE_SHOWN)}")
        shown |= {"action", "parsed_action"}
    if info.get("status") is not None:
        head.append(f"status {visible.brief(info['status'], INFO_VALUE_SHOWN)}")
    text = visible.rich(" · ".join(head), style="dim")
    rest = info_pairs((key, value) for key, value in info.items() if key not in shown)
    if rest:
        text.append("\n")
        text.append_text(visible.rich(rest, style="dim"))
    out = stdout()
    # On a terminal, long info wraps between pairs; in a pipe each stays one greppable line.
    out.print(text, soft_wrap=not out.is_terminal)


def info_pairs(items: Iterable[tuple[Any, Any]]) -> str:
    """`  key=value  key=value`, bounded: values cut at INFO_VALUE_SHOWN characters, the whole
    at about INFO_KEYS_SHOWN, then `… N more keys`."""
    pairs: list[str] = []
    size = left = 0
    for key, value in items:
        if size > INFO_KEYS_SHOWN:
            left += 1
            continue
        pair = f"{visible.brief(key, 40)}={visible.brief(value, INFO_VALUE_SHOWN)}"
        pairs.append(pair)
        size += len(pair) + 2
    if left:
        pairs.append(f"… {plural(left, 'more key')}")
    return "  " + "  ".join(pairs) if pairs else ""
