"""A zero-latency stand-in for vLLM, so a scheduler benchmark times the scheduler and the env.

The same approach as `tests/swift/conftest.py`: an object with `infer_async` returning ms-swift's
own `ChatCompletionResponse`, and a character-level tokenizer whose ids ms-swift's multi-turn
loop can decode. The reply of each turn is looked up in a table built before timing.
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


class ScriptedEngine:
    """Answers turn t of trajectory `uuid` with `replies[uuid][t]` (the last one once exhausted)."""

    def __init__(self, replies: dict[str, list[str]]):
        self.replies = replies
        self.tokenizer = CharTokenizer()
        self.turns: dict[str, int] = {}

    async def infer_async(self, request: Any, request_config: Any, **kwargs: Any) -> Any:
        turn = self.turns.get(request.uuid, 0)
        self.turns[request.uuid] = turn + 1
        script = self.replies[request.uuid]
        text = script[min(turn, len(script) - 1)]
        ids = self.tokenizer.encode(text)
        choice = ChatCompletionResponseChoice(
            index=0,
            message=ChatMessage(role="assistant", content=text),
            finish_reason="stop",
            token_ids=ids,
        )
        usage = UsageInfo(prompt_tokens=0, completion_tokens=len(ids), total_tokens=len(ids))
        return ChatCompletionResponse(model="scripted", choices=[choice], usage=usage)
