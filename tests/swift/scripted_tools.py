"""Scripted replies with parsed tool calls, for driving ms-swift's schedulers without a model.

What an engine started with `--agent_template` hands the scheduler: the reply's text, its calls
parsed into `message.tool_calls`, and token ids (a character-level tokenizer's, which ms-swift's
multi-turn loop decodes). `ScriptedToolEngine` is an in-process fake of such an engine, shared
by the tool, agent, MCP and python-tool tests; tests whose replies depend on the chat build
theirs with `tool_reply`.
"""

from __future__ import annotations

import json
from typing import Any

from swift.infer_engine.protocol import (
    ChatCompletionMessageToolCall,
    ChatCompletionResponse,
    ChatCompletionResponseChoice,
    ChatMessage,
    Function,
    UsageInfo,
)


class CharTokenizer:
    def encode(self, text: str, add_special_tokens: bool = False, **kwargs: Any) -> list[int]:
        return [ord(char) for char in text]

    def decode(self, ids: list[int], **kwargs: Any) -> str:
        return "".join(chr(i) for i in ids)


def tool_call(name: str, arguments: str | dict[str, Any], call_id: str) -> Any:
    """A parsed call, as ms-swift's engines put it on the reply (`arguments` as JSON text;
    a str is kept as written, garbage included)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ChatCompletionMessageToolCall(
        id=call_id, type="function", function=Function(name=name, arguments=text)
    )


def tool_reply(text: str, calls: list[Any], model: str = "tools") -> ChatCompletionResponse:
    """The engine's response: `text` with `calls` parsed, and its character ids."""
    ids = CharTokenizer().encode(text)
    choice = ChatCompletionResponseChoice(
        index=0,
        message=ChatMessage(role="assistant", content=text, tool_calls=calls or None),
        finish_reason="stop",
        token_ids=ids,
    )
    usage = UsageInfo(prompt_tokens=0, completion_tokens=len(ids), total_tokens=len(ids))
    return ChatCompletionResponse(model=model, choices=[choice], usage=usage)


class ScriptedToolEngine:
    """Replies `script[turn]`, (text, [parsed calls]), the last one again once the script runs
    out; keeps each request's messages and tools."""

    def __init__(self, script: list[tuple[str, list[Any]]]):
        self.script = script
        self.tokenizer = CharTokenizer()
        self.turns: dict[str, int] = {}
        self.requests: list[tuple[list[dict], Any]] = []

    async def infer_async(self, request: Any, request_config: Any, **kwargs: Any) -> Any:
        self.requests.append(([dict(m) for m in request.messages], request.tools))
        turn = self.turns.get(request.uuid, 0)
        self.turns[request.uuid] = turn + 1
        text, calls = self.script[min(turn, len(self.script) - 1)]
        return tool_reply(text, calls)
