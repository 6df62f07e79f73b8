"""The line a person types in `play` to make a tool call: `/call NAME ARGUMENTS`.

NAME is the tool, ARGUMENTS the rest of the line, sent exactly as typed (JSON, as a model
writes them: `/call move {"direction": "up"}`; none at all sends ""). The env checks them as it
checks a model's, so a mistake comes back as the error result the model would read. One call
per line; a line that starts with `//call` is the text after its first slash.
"""

from __future__ import annotations

from typing import Any

PREFIX = "/call"
USAGE = "/call NAME {JSON arguments}"


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
