"""A tool episode encodes for training exactly as its chat does, through ms-swift's real template.

ms-swift 4.6 keeps each sampled reply as its ids, end token included, and its template writes
the tool response's own opening `<|im_end|>` after them: a tool turn read
`<call><|im_end|><|im_end|>` and trained the doubled token (`swift_gym.ms_swift.tool_turn_ids`).
Here FrozenLake's tool episodes run through the `swift_gym` scheduler on both of ms-swift's
paths, on an in-process stand-in of its engine (named so) that samples like `TransformersEngine`:
the reply's ids from the real tokenizer, `<|im_end|>` last, the calls parsed by the real hermes
agent template, and the real `qwen2_5` + hermes template as the engine's. The episode's
completion is then encoded as the GRPO trainer encodes it (`replace_assistant_response_with_ids`,
the template in train mode).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from swift.infer_engine.protocol import (
    ChatCompletionMessageToolCall,
    ChatCompletionResponse,
    ChatCompletionResponseChoice,
    ChatMessage,
    UsageInfo,
)
from tiny_model import build_tiny_model

CALL = '<tool_call>\n{{"name": "move", "arguments": {{"direction": "{}"}}}}\n</tool_call>'
SCRIPT = [CALL.format("down"), "not a call", CALL.format("down"), CALL.format("right")]
"""Two moves, an invalid reply (no call: a user turn follows), one more move."""
CALLS = [CALL.format("down"), CALL.format("right")]
"""One token each, as experiment C's tokenizer has them."""
LAKE = {"name": "frozen_lake", "action_format": "tool", "map": "SFFF/FHFH/FFFH/HFFG"}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from swift.model import get_processor
    from swift.template import get_template

    model = build_tiny_model(tmp_path_factory.mktemp("tiny"), added_tokens=CALLS)
    processor = get_processor(str(model), model_type="qwen2", download_model=False)
    return get_template(processor, template_type="qwen2_5", agent_template="hermes")


class SampledEngine:
    """In-process stand-in of ms-swift's TransformersEngine: replies `SCRIPT` in turn, with the
    ids a model would have sampled (the end token last) and the calls hermes parses."""

    def __init__(self, template: Any):
        self.template = template
        self.tokenizer = template.tokenizer
        self.turns: dict[str, int] = {}
        self.end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")

    async def infer_async(self, request: Any, request_config: Any, **kwargs: Any) -> Any:
        turn = self.turns.get(request.uuid, 0)
        self.turns[request.uuid] = turn + 1
        text = SCRIPT[min(turn, len(SCRIPT) - 1)]
        ids = [*self.tokenizer.encode(text, add_special_tokens=False), self.end]
        calls = [
            ChatCompletionMessageToolCall(function=f)
            for f in self.template.agent_template.get_toolcall(text)
        ]
        choice = ChatCompletionResponseChoice(
            index=0,
            message=ChatMessage(role="assistant", content=text, tool_calls=calls or None),
            finish_reason="stop",
            token_ids=ids,
        )
        usage = UsageInfo(prompt_tokens=0, completion_tokens=len(ids), total_tokens=len(ids))
        return ChatCompletionResponse(model="sampled", choices=[choice], usage=usage)


def tool_episode(run_rollout, rows, template: Any) -> Any:
    from swift.rollout.multi_turn import multi_turns

    engine = SampledEngine(template)
    scheduler = multi_turns["swift_gym"](
        infer_engine=engine, max_turns=len(SCRIPT), gym_env="frozen_lake",
        tokenizer=engine.tokenizer,
    )  # fmt: skip
    requests = rows(LAKE)
    requests[0].tools = tools_of_the_lake()
    (output,) = run_rollout("swift_gym", None, requests, len(SCRIPT), scheduler=scheduler)
    return output


def tools_of_the_lake() -> list[dict[str, Any]]:
    import asyncio

    import swift_gym

    env = swift_gym.make(LAKE)
    asyncio.run(env.reset())
    return json.loads(json.dumps(list(env.tools())))


def with_response_ids(output: Any) -> list[dict]:
    """The episode's messages with each reply as the ids and loss mask ms-swift trains on, as
    its `replace_assistant_response_with_ids` puts them (last reply last). Not imported: its
    module finds `tests/vllm` on this suite's path and takes it for vLLM."""
    messages = [dict(m) for m in output.messages]
    turns = list(zip(output.response_token_ids, output.response_loss_mask, strict=True))
    for message in reversed(messages):
        if message["role"] == "assistant" and turns:
            ids, mask = turns.pop()
            message["content"] = {"token_ids": ids, "loss_scale": mask}
    assert not turns
    return messages


def encoded(template: Any, messages: list[dict], tools: Any) -> dict:
    template.set_mode("train")
    try:
        return template.encode({"messages": messages, "tools": json.dumps(tools)})
    finally:
        template.set_mode("pt")


def test_a_tool_episode_trains_on_its_chats_tokens_with_each_end_token_labelled(
    run_rollout, rows, template: Any
) -> None:
    output = tool_episode(run_rollout, rows, template)
    assert output.rollout_infos["num_turns"] == len(SCRIPT)
    roles = [m["role"] for m in output.messages]
    assert roles.count("tool") == 2 and roles.count("assistant") == len(SCRIPT)
    tools = tools_of_the_lake()
    trained = with_response_ids(output)
    as_trained = encoded(template, trained, tools)
    replies = iter(SCRIPT)  # the chat: each reply as its text
    chat = [
        {**m, "content": next(replies)} if m["role"] == "assistant" else dict(m)
        for m in output.messages
    ]
    as_chat = encoded(template, chat, tools)
    tokenizer = template.tokenizer
    text = tokenizer.decode(as_trained["input_ids"])
    assert "<|im_end|><|im_end|>" not in text  # was before each of the 2 tool responses
    # the same tokens; a chat's last reply ends in the template's suffix, `<|im_end|>\n`,
    # a sampled one in its own end token (ms-swift's doing, on every env)
    assert as_chat["input_ids"] == [*as_trained["input_ids"], *tokenizer.encode("\n")]
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    call_ids = {tokenizer.convert_tokens_to_ids(c) for c in CALLS}
    labelled = [
        i
        for i, label in zip(as_trained["input_ids"], as_trained["labels"], strict=True)
        if label != -100
    ]
    calls = [i for i, token in enumerate(labelled) if token in call_ids]
    assert len(calls) == 3
    assert all(labelled[i + 1] == end for i in calls)  # each call's end token is trained
    assert labelled.count(end) == len(SCRIPT)  # once per reply, never twice


def test_only_a_reply_a_tool_response_follows_loses_its_end_token(
    run_rollout, rows, template: Any
) -> None:
    """The ids ms-swift keeps for each reply (and freezes as the next prompts' history): a
    reply before a tool response without its end token, the others as sampled."""
    output = tool_episode(run_rollout, rows, template)
    end = template.tokenizer.convert_tokens_to_ids("<|im_end|>")
    for ids, message_index in zip(
        output.response_token_ids,
        [i for i, m in enumerate(output.messages) if m["role"] == "assistant"],
        strict=True,
    ):
        after = output.messages[message_index + 1 : message_index + 2]
        following = after[0]["role"] if after else None
        assert (ids[-1] == end) is (following != "tool")


def test_a_text_env_keeps_its_sampled_ids(run_rollout, rows, template: Any) -> None:
    """Before a user turn ms-swift's template drops the overlap itself: nothing trimmed."""
    from swift.rollout.multi_turn import multi_turns

    engine = SampledEngine(template)
    scheduler = multi_turns["swift_gym"](
        infer_engine=engine, max_turns=2, gym_env="frozen_lake", tokenizer=engine.tokenizer
    )
    (output,) = run_rollout(
        "swift_gym", None, rows({"name": "frozen_lake"}), 2, scheduler=scheduler
    )
    end = engine.end
    assert output.response_token_ids and all(ids[-1] == end for ids in output.response_token_ids)
