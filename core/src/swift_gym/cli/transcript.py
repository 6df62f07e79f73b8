"""How a chat turn looks in the terminal, shared by `play` and `replay` (bounded as the report's
episode browser bounds it: `report.visible`).

Every text shown came from a model, a dataset or an env package, so it goes through `visible`:
controls and invisible characters escaped, blank texts labelled, `[brackets]` and tags shown as
they are (never read as rich markup). Newlines and tabs stay, so multi-line texts read as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..report.visible import ARGUMENTS_SHOWN as ARGUMENTS_SHOWN  # the command's views' too
from ..report.visible import CALLS_SHOWN as CALLS_SHOWN
from ..report.visible import TOOLS_SHOWN as TOOLS_SHOWN
from ..report.visible import listed as listed
from ..report.visible import plural as plural
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


RESULT_SHOWN = 4000
"""Characters of a tool result shown at most, then how long it was."""
_NAME_SHOWN = 80
_DESCRIPTION_SHOWN = 300


def _more(count: int, noun: str) -> str:
    return f"… {plural(count, noun)}" if count > 0 else ""


def tools_section(tools: Any) -> None:
    """The tools offered: per tool `name: description`, then its parameters, all bounded."""
    offered = listed(tools)
    lines = []
    for tool in offered[:TOOLS_SHOWN]:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict):
            lines.append(visible.brief(tool, _DESCRIPTION_SHOWN))
            continue
        line = visible.brief(function.get("name"), _NAME_SHOWN)
        if function.get("description"):
            line += f": {visible.brief(function['description'], _DESCRIPTION_SHOWN)}"
        if function.get("parameters"):
            line += f"\n  parameters: {visible.brief(function['parameters'], _DESCRIPTION_SHOWN)}"
        lines.append(line)
    lines.append(_more(len(offered) - TOOLS_SHOWN, "more tool"))
    section(f"tools ({len(offered)})", "\n".join(line for line in lines if line))


def call_lines(calls: Any) -> None:
    """One line per call of a reply: `call NAME (ID) ARGUMENTS`, arguments as the model wrote
    them, bounded."""
    made = listed(calls)
    out = stdout()
    for call in made[:CALLS_SHOWN]:
        if not isinstance(call, dict):
            out.print(visible.rich(f"call {visible.brief(call, ARGUMENTS_SHOWN)}", "cyan"))
            continue
        text = (
            f"call {visible.brief(call.get('name'), _NAME_SHOWN)} "
            f"({visible.brief(call.get('id'), _NAME_SHOWN)})"
        )
        arguments = call.get("arguments")
        if arguments not in ("", None):
            text += f" {visible.brief(arguments, ARGUMENTS_SHOWN)}"
        out.print(visible.rich(text, "cyan"), soft_wrap=not out.is_terminal)
    if len(made) > CALLS_SHOWN:
        note(_more(len(made) - CALLS_SHOWN, "more call"))


def result_sections(results: Any) -> None:
    """Each tool result under a `tool NAME (ID)` rule, its content escaped and bounded."""
    given = listed(results)
    for result in given[:CALLS_SHOWN]:
        if not isinstance(result, dict):
            section("tool", visible.brief(result, RESULT_SHOWN))
            continue
        title = (
            f"tool {visible.brief(result.get('name'), _NAME_SHOWN)} "
            f"({visible.brief(result.get('tool_call_id'), _NAME_SHOWN)})"
        )
        content = result.get("content")
        if isinstance(content, str) and len(content) > RESULT_SHOWN:
            content = f"{content[:RESULT_SHOWN]}… ({len(content):,} characters in all)"
        section(title, content)
    if len(given) > CALLS_SHOWN:
        note(_more(len(given) - CALLS_SHOWN, "more result"))
