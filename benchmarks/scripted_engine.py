"""A zero-latency stand-in for vLLM, so a scheduler benchmark times the scheduler and the env.

The same approach as `tests/swift/conftest.py`: an object with `infer_async` returning ms-swift's
own `ChatCompletionResponse`, and a character-level tokenizer whose ids ms-swift's multi-turn
loop can decode. The reply of each turn is looked up in a table built before timing: a text, or
(text, tool calls) for a reply whose calls the engine parsed, as one with `--agent_template`
hands them over in `message.tool_calls`.
"""

from __future__ import annotations

from typing import Any

from swift.infer_engine.protocol import (
    ChatCompletionResponse,
    ChatCompletionResponseChoice,
    ChatMessage,
    UsageInfo,
)


class CharTokenizer:
    def encode(self, text: str, add_special_tokens: bool = False, **kwargs: Any) -> list[int]:
        return [ord(char) for char in text]

    def decode(self, ids: list[int], **kwargs: Any) -> str:
        return "".join(chr(i) for i in ids)


class ReplyTokenizer:
    """One token id per distinct reply text, as a tokenizer with each reply as an added token
    has (the tests' tiny tool model writes a hermes call as one token): a comparison of two
    reply formats then pays ms-swift's per-token work equally on both sides."""

    def __init__(self, replies: dict[str, list[Any]]):
        texts = {r[0] if isinstance(r, tuple) else r for script in replies.values() for r in script}
        self.texts = sorted(texts)
        self.ids = {text: index for index, text in enumerate(self.texts)}

    def encode(self, text: str, add_special_tokens: bool = False, **kwargs: Any) -> list[int]:
        return [self.ids[text]]

    def decode(self, ids: list[int], **kwargs: Any) -> str:
        return "".join(self.texts[i] for i in ids)


class ScriptedEngine:
    """Answers turn t of trajectory `uuid` with `replies[uuid][t]` (the last one once exhausted)."""

    def __init__(self, replies: dict[str, list[Any]], tokenizer: Any = None):
        self.replies = replies
        self.tokenizer = tokenizer or CharTokenizer()
        self.turns: dict[str, int] = {}

    async def infer_async(self, request: Any, request_config: Any, **kwargs: Any) -> Any:
        turn = self.turns.get(request.uuid, 0)
        self.turns[request.uuid] = turn + 1
        script = self.replies[request.uuid]
        reply = script[min(turn, len(script) - 1)]
        text, calls = reply if isinstance(reply, tuple) else (reply, None)
        ids = self.tokenizer.encode(text)
        choice = ChatCompletionResponseChoice(
            index=0,
            message=ChatMessage(role="assistant", content=text, tool_calls=calls),
            finish_reason="stop",
            token_ids=ids,
        )
        usage = UsageInfo(prompt_tokens=0, completion_tokens=len(ids), total_tokens=len(ids))
        return ChatCompletionResponse(model="scripted", choices=[choice], usage=usage)
