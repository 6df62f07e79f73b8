"""Whether an episode's next prompt still leaves its engine room to generate.

ms-swift 4.6's engines raise `ValueError: Input length (N) leaves no room for generation with
max_model_len (M)` for a prompt of `max_model_len` tokens or more, and in training that ends the
whole run, not the one episode. The `swift_gym` scheduler asks `ContextRoom` before each turn
and ends only the episode whose next prompt would not fit.

Counting a prompt with the engine's own template costs milliseconds (7 ms for a 600-token
FrozenLake chat on this project's CPU), so an episode is counted once and then bounded: the next
prompt has at most the last count's tokens, plus its newest reply's sampled ids, plus each new
message's content (at most one token per UTF-8 byte, as byte-level BPE and SentencePiece split
text) and wrapping (at most `WRAP` tokens a message). It is counted again only when that bound
reaches the limit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

WRAP = 64
"""Tokens a chat template may spend around one message (role markers, separators, a tool
response's tags): ChatML spends 5."""


@dataclass(frozen=True)
class Fit:
    """One episode's next prompt: whether it fits, its tokens (a bound when not counted), and
    the engine's `max_model_len` it was held to."""

    fits: bool
    tokens: int
    counted: bool
    max_model_len: int


class ContextRoom:
    """The room an engine has: its template counts prompts, `max_model_len` bounds them."""

    def __init__(self, template: Any, max_model_len: int, offset: int = 0):
        self.template = template
        self.limit = max_model_len + offset  # ms-swift raises from this many prompt tokens
        self.max_model_len = max_model_len
        self._bounds: dict[str, int] = {}

    @classmethod
    def of(cls, engine: Any) -> ContextRoom | None:
        """The engine's room, or None when it has no template or no `max_model_len` to say
        (ms-swift then assumes 8192 and warns; nothing is checked here)."""
        template = getattr(engine, "template", None)
        limit = getattr(engine, "max_model_len", None)
        offset = getattr(engine, "max_tokens_offset", 0)
        if template is None or not callable(getattr(template, "encode", None)):
            return None
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            return None
        return cls(template, limit, offset if isinstance(offset, int) else 0)

    def next_prompt(
        self, key: str, added: int | None, prompt: Callable[[], tuple[list[dict], Any]]
    ) -> Fit:
        """Whether the episode `key`'s next prompt fits.

        `added`: a bound on the tokens it adds to the last prompt this episode asked about
        (`added_tokens`), or None to count it; `prompt()`: its messages and tools, built only
        when it is counted.
        """
        last = self._bounds.get(key)
        if last is not None and added is not None and last + added < self.limit:
            self._bounds[key] = last + added
            return Fit(True, last + added, False, self.max_model_len)
        tokens = self.count(*prompt())
        self._bounds[key] = tokens
        return Fit(tokens < self.limit, tokens, True, self.max_model_len)

    def count(self, messages: list[dict[str, Any]], tools: list[Any] | None) -> int:
        """The prompt's tokens as the engine's template encodes it; a prompt the template
        refuses as too long (`--truncation_strategy raise`) counts as the limit."""
        from swift.infer_engine.protocol import InferRequest
        from swift.template.base import MaxLengthError

        request = InferRequest(messages=messages, tools=tools or None)
        try:
            encoded = self.template.encode(request)
        except MaxLengthError:
            return self.limit
        return len(encoded["input_ids"])

    def forget(self, key: str) -> None:
        self._bounds.pop(key, None)


def added_tokens(reply_ids: list[int] | None, reply: Any, new_messages: list[dict]) -> int:
    """A bound on the tokens a turn adds to the prompt: the reply (its sampled ids, which
    ms-swift sends as they are; its text's bytes when it has none) and the new messages."""
    total = len(reply_ids) if reply_ids else _bytes(reply)
    for message in new_messages:
        total += WRAP + _bytes(message.get("content"))
    return total + WRAP


def _bytes(content: Any) -> int:
    if isinstance(content, str):
        return len(content.encode("utf-8", "surrogatepass"))
    if isinstance(content, list):  # token ids, or multimodal parts
        return sum(_bytes(part) if not isinstance(part, int) else 1 for part in content)
    if isinstance(content, dict):
        return sum(_bytes(value) for value in content.values())
    return 0
