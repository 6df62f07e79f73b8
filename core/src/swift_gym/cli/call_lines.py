"""The line a person types in `play` to make a tool call: `/call NAME ARGUMENTS`.

NAME is the tool, ARGUMENTS the rest of the line, sent exactly as typed (JSON, as a model
writes them: `/call move {"direction": "up"}`; none at all sends ""). The env checks them as it
checks a model's, so a mistake comes back as the error result the model would read. One call
per line; a line that starts with `//call` is the text after its first slash.

`/help` is play's own: it shows how to reply and sends nothing (no turn is spent); `//help`
sends the text `/help`.
"""

from __future__ import annotations

from typing import Any

PREFIX = "/call"
USAGE = "/call NAME {JSON arguments}"
HELP = "/help"


def help_text(tool_names: list[str]) -> str:
    """What `/help` prints, and what play prints once after the tools of a tool env."""
    if not tool_names:
        return (
            "each line you type is one reply, sent as the model's; /help shows this (no turn "
            "is spent), //help sends the text /help; Ctrl-D or Ctrl-C ends the session"
        )
    example = f'{PREFIX} {tool_names[0]} {{"name": "value"}}'
    return (
        f"a line is a text reply, or a tool call: {USAGE} (e.g. {example}: the arguments are "
        "sent exactly as typed, and the env checks them as a model's); //call sends the text "
        "/call; /help shows this (no turn is spent), //help sends the text /help; Ctrl-D or "
        "Ctrl-C ends the session"
    )


def is_help(line: str) -> bool:
    """Whether `line` asks play for help (answered by play, never sent to the env)."""
    return line.strip() == HELP


class CallLineError(ValueError):
    """A `/call` line that names no tool; the message gives the syntax."""


def typed_reply(line: str, call_id: str) -> str | dict[str, Any]:
    """The reply `line` stands for: its text, or an assistant message whose one tool call has
    the id `call_id` (the shape a policy returns, see `swift_gym.replies`)."""
    if line.startswith("/" + PREFIX):
        return line[1:]
    head = line[len(PREFIX) : len(PREFIX) + 1]
    if not line.startswith(PREFIX) or head not in ("", " ", "\t"):
        return line
    name, arguments, *_ = [*line[len(PREFIX) :].split(None, 1), "", ""]
    if not name or name.startswith("{"):
        raise CallLineError(f"/call needs a tool name: {USAGE}")
    function = {"name": name, "arguments": arguments.strip()}
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }
