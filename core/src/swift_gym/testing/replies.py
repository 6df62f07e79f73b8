"""The replies the kit plays: garbage any env must survive, and a seeded mix per episode.

A model under training writes anything, and ms-swift hands it to `step` as the last message:
content may be empty, None, a list of parts, a megabyte of text or several answer tags.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..env import Message

HUGE_CHARS = 1_000_000

GARBAGE_REPLIES: dict[str, Message] = {
    "empty": {"role": "assistant", "content": ""},
    "whitespace": {"role": "assistant", "content": " \n\t \r\n"},
    "none": {"role": "assistant", "content": None},
    "no_content": {"role": "assistant"},
    "huge": {
        "role": "assistant",
        "content": ("<" + "x" * 99) * (HUGE_CHARS // 200)
        + "<action>up</action><answer>1</answer>" * (HUGE_CHARS // 2 // 37),
    },
    "unicode": {
        "role": "assistant",
        "content": "Ünïcödé 上 ⬆️ 🧊 \u200b\u200d مرحبا \u0000 e\u0301 <action>上</action>",
    },
    "list_content": {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "thinking"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "text", "text": "<answer>1</answer>"},
        ],
    },
    "several_tags": {
        "role": "assistant",
        "content": "<action>up</action><action>down</action><answer>1</answer><answer>2</answer>",
    },
    "broken_tags": {
        "role": "assistant",
        "content": "<action><answer>1</action></answer><action>< / action ><answer",
    },
    "not_text": {"role": "assistant", "content": 42},
}
"""Replies of odd shape, size and text. `step` must answer each with a normal result."""

_SAMPLE_SHARE = 0.6
_ORACLE_SHARE = 0.5


def as_message(reply: str | Mapping[str, Any]) -> Message:
    """A reply given as text or as a whole message, as the assistant message ms-swift sends."""
    if isinstance(reply, str):
        return {"role": "assistant", "content": reply}
    return dict(reply)


def reply_label(reply: Message) -> str:
    """How a violation names the reply: its garbage name, else its text cut short."""
    for name, garbage in GARBAGE_REPLIES.items():
        if reply == garbage:
            return name
    content = reply.get("content")
    text = content if isinstance(content, str) else repr(content)
    label = repr(text if len(text) <= 60 else text[:57] + "...")
    calls = reply.get("tool_calls")
    if isinstance(calls, (list, tuple)) and calls:
        label += f" with {len(calls)} tool call{'s' * (len(calls) != 1)}"
    return label


class Script(Protocol):
    """Chooses each reply of an episode."""

    def next(self, oracle: str | Mapping[str, Any] | None) -> Message:
        """The next reply; `oracle` is the env's own best reply now, if it has one."""
        ...


class RepeatedReply:
    """A script that always sends the same reply."""

    def __init__(self, reply: Message):
        self._reply = reply

    def next(self, oracle: str | Mapping[str, Any] | None) -> Message:
        return self._reply


class ReplyScript:
    """The replies of one episode: a mix of the env's oracle, samples and garbage, seeded.

    The same `key` gives the same choices, so two runs of an episode send the same replies
    whenever the env behaves the same. It never touches the global `random` state.
    """

    def __init__(self, key: str, samples: Sequence[Message]):
        self._rng = random.Random(key)
        self._samples = list(samples)
        self._garbage = list(GARBAGE_REPLIES.values())

    def next(self, oracle: str | Mapping[str, Any] | None) -> Message:
        """The next reply; `oracle` is the env's own best reply now, if it has one."""
        draw = self._rng.random()
        pick = self._rng.random()
        if oracle is not None and draw < _ORACLE_SHARE:
            return as_message(oracle)
        if self._samples and pick < _SAMPLE_SHARE:
            return self._samples[self._rng.randrange(len(self._samples))]
        return self._garbage[self._rng.randrange(len(self._garbage))]
