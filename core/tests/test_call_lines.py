"""`play`'s `/call NAME ARGUMENTS` lines: which lines are calls, what a call sends."""

from __future__ import annotations

import pytest

from swift_gym.cli.call_lines import CallLineError, typed_reply


def function_of(line: str) -> dict[str, str]:
    reply = typed_reply(line, "call_7")
    assert isinstance(reply, dict) and reply["content"] == "" and reply["role"] == "assistant"
    (call,) = reply["tool_calls"]
    assert call["id"] == "call_7" and call["type"] == "function"
    return call["function"]


@pytest.mark.parametrize(
    ("line", "name", "arguments"),
    [
        ('/call move {"direction": "up"}', "move", '{"direction": "up"}'),
        ("/call move", "move", ""),
        ("/call\tmove  {}  ", "move", "{}"),
        ("/call move not json", "move", "not json"),
        ("/call move\t{}", "move", "{}"),  # sent as typed: the env answers
    ],
)
def test_call_lines(line: str, name: str, arguments: str) -> None:
    assert function_of(line) == {"name": name, "arguments": arguments}


@pytest.mark.parametrize(
    ("line", "text"),
    [
        ("move up", "move up"),
        ("/callmove {}", "/callmove {}"),
        ("//call move {}", "/call move {}"),
        (" /call move {}", " /call move {}"),
        ("", ""),
    ],
)
def test_other_lines_are_text(line: str, text: str) -> None:
    assert typed_reply(line, "call_1") == text


@pytest.mark.parametrize("line", ["/call", "/call   ", '/call {"direction": "up"}'])
def test_a_call_without_a_name_is_refused_with_the_syntax(line: str) -> None:
    with pytest.raises(CallLineError, match=r"/call needs a tool name: /call NAME \{JSON"):
        typed_reply(line, "call_1")
