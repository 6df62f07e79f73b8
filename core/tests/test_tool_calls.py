"""`swift_gym.tool_calls(messages)`: the newest reply's tool calls, one typed shape whatever was
handed over (plain dicts, ms-swift's dataclasses, OpenAI SDK objects), bounded, never raising."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swift_gym import ToolCall, reply_text, tool_calls
from swift_gym.replies import MAX_CALL_ID_CHARS, MAX_TOOL_CALLS

# In-process stand-in for ms-swift 4.6's classes, copied from swift/infer_engine/protocol.py
# (modelscope/ms-swift 3602360a5): ms-swift itself (torch, transformers) is too heavy for unit
# tests. `InferEngine._get_toolcall` fills `ChatMessage.tool_calls` with these.


@dataclass
class Function:
    name: str
    arguments: str | Any | None

    def __post_init__(self):
        if not isinstance(self.arguments, str):
            self.arguments = json.dumps(self.arguments, ensure_ascii=False)
        self.name = self.name.strip()
        self.arguments = self.arguments.strip()


@dataclass
class ChatCompletionMessageToolCall:
    function: Function
    type: str = "function"
    id: str = field(default_factory=lambda: f"toolcall-{uuid.uuid4().hex}")


@dataclass
class ChatMessage:
    role: str
    content: Any
    tool_calls: list[ChatCompletionMessageToolCall] | None = None
    reasoning_content: str | None = None


EXPECTED = [
    ToolCall(id="c1", name="get_weather", arguments='{"city": "Oslo"}'),
    ToolCall(id="c2", name="search", arguments="{}"),
]
OPENAI_DICTS = [
    {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    },
    {"id": "c2", "type": "function", "function": {"name": "search", "arguments": "{}"}},
]


def assistant(tool_calls: Any, content: Any = "thinking") -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": tool_calls}


def test_openai_shaped_dicts() -> None:
    messages = [{"role": "user", "content": "hi"}, assistant(OPENAI_DICTS)]
    assert tool_calls(messages) == EXPECTED
    assert reply_text(messages) == "thinking"  # the text beside the calls


def test_ms_swift_tool_call_objects_in_a_dict_message() -> None:
    calls = [
        ChatCompletionMessageToolCall(Function("get_weather", {"city": "Oslo"}), id="c1"),
        ChatCompletionMessageToolCall(Function(" search ", "{}"), id="c2"),
    ]
    assert tool_calls([assistant(calls)]) == EXPECTED


def test_an_ms_swift_chat_message_itself() -> None:
    calls = [ChatCompletionMessageToolCall(Function("search", "{}"), id="c2")]
    assert tool_calls(ChatMessage("assistant", "x", calls)) == EXPECTED[1:]
    assert tool_calls([ChatMessage("assistant", "x", calls)]) == EXPECTED[1:]
    generated = tool_calls([assistant([ChatCompletionMessageToolCall(Function("f", {}))])])
    assert generated[0].id.startswith("toolcall-")


def test_openai_sdk_objects() -> None:
    chat = pytest.importorskip("openai.types.chat")
    message = chat.ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "tool_calls": OPENAI_DICTS}
    )
    assert tool_calls(message) == EXPECTED
    assert tool_calls([{"role": "assistant", "tool_calls": message.tool_calls}]) == EXPECTED


def test_openai_sdk_custom_tool_call_keeps_its_name_and_input() -> None:
    chat = pytest.importorskip("openai.types.chat")
    message = chat.ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c9", "type": "custom", "custom": {"name": "g", "input": "raw"}}],
        }
    )
    assert tool_calls(message) == [ToolCall("c9", "g", "raw")]


def test_flat_calls_without_a_function_field() -> None:
    """ms-swift's own message normaliser reads a call with no `function` as the function."""
    assert (
        tool_calls([assistant([{"id": "c2", "name": "search", "arguments": {}}])]) == EXPECTED[1:]
    )


def test_arguments_given_as_json_values_are_encoded_and_none_is_empty() -> None:
    calls = tool_calls(
        [
            assistant(
                [
                    {"id": "a", "function": {"name": "f", "arguments": {"u": "é"}}},
                    {"id": "b", "function": {"name": "f", "arguments": None}},
                    {"id": "c", "function": {"name": "f", "arguments": {1, 2}}},
                ]
            )
        ]
    )
    assert [c.arguments for c in calls[:2]] == ['{"u": "é"}', ""]
    with pytest.raises(ValueError):  # arguments JSON cannot hold: text that is not JSON
        calls[2].parsed_arguments()


def test_no_calls() -> None:
    for messages in (
        [],
        "text",
        None,
        [{"role": "assistant", "content": "x"}],
        [assistant(None)],
        [assistant("not a list")],
        [{"role": "user", "content": "x", "tool_calls": OPENAI_DICTS}],  # not the model's
        [assistant(OPENAI_DICTS), {"role": "user", "content": "later"}],
        42,
    ):
        assert tool_calls(messages) == [], messages


def test_unreadable_calls_still_count_and_get_a_nameless_call() -> None:
    calls = tool_calls([assistant([42, {"id": "x"}, {"function": "f"}])])
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_0", "", ""),
        ("x", "", ""),
        ("call_2", "", ""),
    ]


def test_ids_that_cannot_tie_a_result_are_replaced() -> None:
    bad_ids = [None, "", 7, "x" * (MAX_CALL_ID_CHARS + 1), "a\nb", "a\ud800"]
    calls = tool_calls([assistant([{"id": bad, "function": {"name": "f"}} for bad in bad_ids])])
    assert [c.id for c in calls] == [f"call_{i}" for i in range(len(bad_ids))]
    assert (
        tool_calls([assistant([{"id": "x" * MAX_CALL_ID_CHARS}])])[0].id == "x" * MAX_CALL_ID_CHARS
    )


def test_duplicate_ids_are_made_unique() -> None:
    calls = tool_calls([assistant([{"id": "a", "function": {"name": "f"}}] * 3)])
    assert [c.id for c in calls] == ["a", "call_1", "call_2"]


def test_a_replaced_id_never_takes_an_id_the_model_gave() -> None:
    calls = tool_calls([assistant([{"id": "call_1"}, {"id": None}, {"id": "call_1_1"}])])
    assert len({c.id for c in calls}) == 3
    assert calls[0].id == "call_1"


def test_at_most_max_tool_calls_are_read() -> None:
    many = [{"id": f"c{i}", "function": {"name": "f", "arguments": "{}"}} for i in range(10_000)]
    calls = tool_calls([assistant(many)])
    assert len(calls) == MAX_TOOL_CALLS
    assert calls[-1].id == f"c{MAX_TOOL_CALLS - 1}"


def test_objects_whose_attributes_raise_give_a_nameless_call() -> None:
    class Hostile:
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError("no")

    assert tool_calls([assistant([Hostile()])]) == [ToolCall("call_0", "", "")]
    assert tool_calls(Hostile()) == []


JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(calls=JSONISH, role=st.sampled_from(["assistant", "user", None]))
def test_tool_calls_never_raise_and_always_give_strings(calls: Any, role: Any) -> None:
    message = {"content": "x", "tool_calls": calls}
    if role:
        message["role"] = role
    for found in tool_calls([message]):
        assert isinstance(found, ToolCall)
        assert all(isinstance(part, str) for part in (found.id, found.name, found.arguments))
