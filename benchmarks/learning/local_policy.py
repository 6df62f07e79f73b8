"""Play a checkpoint in-process with transformers, as a `swift_gym.evaluate` policy.

Why not `swift deploy` + `swift-gym eval --policy openai`: on this 2-core machine each deploy
costs a server start-up per checkpoint and an HTTP round trip per turn, for a model whose turn
is two decoding steps. The library plays the same episodes with the same records and statistics
(`swift_gym.evaluate`), and the prompt is the same ChatML that ms-swift's `qwen2_5` template
writes (the tokenizer's chat template, checked in `tests/swift/test_learning_quick.py`). The GPU
recipe in `examples/learning_gpu/` uses `swift deploy` instead.

With an agent template (experiment C: `--agent-template hermes`, FrozenLake's `action_format:
tool`) the prompt is encoded by ms-swift's own template object, `get_template(..., template_type,
agent_template=...)`, with the env's tools, as GRPO's rollouts encode it, and the reply is read
by the agent template's parser, as ms-swift's engines read it (`InferEngine._get_toolcall`): the
policy returns an assistant message holding the reply's text and its `tool_calls`, so the records
hold the calls and the env's tool results. `tests/swift/test_learning_quick.py` checks that the
prompt's token ids are ms-swift's.

Earlier replies go into the prompt as GRPO's rollouts keep them: as the token ids the model
sampled (ms-swift's multi-turn loop freezes each assistant message as those ids), its end token
included before a user turn (the template drops its overlap with the chat separator), and left
out before a tool response, whose prompt writes it again: the `swift_gym` scheduler hands
ms-swift the ids so (`swift_gym.ms_swift.tool_turn_ids`). Without that, ms-swift 4.6 alone
writes `<call><|im_end|><|im_end|>` where a chat reads `<call><|im_end|>`, and an earlier
experiment C policy trained so scored 0.90 (sampled) and 1.00 (greedy) prompted as its
rollouts were, and 0.195 and 0.0 prompted as a chat: LEARNING.md, "What it took". Now the two
forms differ only where a sampled reply's ids are not what its text encodes to
(`history="chat"` writes each reply from its text).

Sampling is seeded: one torch generator per evaluation, episodes played one at a time
(`concurrency=1`), so a rerun replays the same episodes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from swift_gym import ToolCall
from swift_gym.tools.turns import assistant_message


class LocalPolicy:
    """`(messages, env) -> reply` for `swift_gym.evaluate`: sample (or greedy-decode) one reply.

    `temperature=0` decodes greedily; otherwise plain softmax sampling at `temperature`, with
    `top_k`/`top_p` as ms-swift's GRPO rollouts use them (defaults: 50 and 1.0, i.e. none
    that matter for a 500-token vocabulary)."""

    def __init__(
        self,
        checkpoint: Path,
        temperature: float = 1.0,
        top_k: int = 50,
        top_p: float = 1.0,
        max_new_tokens: int = 4,
        seed: int = 0,
        device: str = "cpu",
        agent_template: str | None = None,
        template_type: str = "qwen2_5",
        model_type: str = "qwen2",
        history: str = "rollout",
    ):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.torch = torch
        torch.use_deterministic_algorithms(True)  # as the training commands (stages.CPU_ARGS)
        self.tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
        dtype = torch.float32 if device == "cpu" else torch.bfloat16
        self.model = AutoModelForCausalLM.from_pretrained(str(checkpoint), dtype=dtype)
        self.model.to(device).eval()
        self.device = device
        self.temperature, self.top_k, self.top_p = temperature, top_k, top_p
        self.max_new_tokens = max_new_tokens
        self.generator = torch.Generator().manual_seed(seed)
        # a reply ends at any of the model's end tokens, as ms-swift's engines end it (its
        # checkpoints list <|im_end|> and <|endoftext|>), not only at the tokenizer's own
        ends = self.model.generation_config.eos_token_id
        ends = [ends] if isinstance(ends, int) else list(ends or [])
        self.end_ids = {self.tokenizer.eos_token_id, *ends}
        # tokens the model's generation config never lets be sampled (the pad token: model.py),
        # as ms-swift's engines and transformers' generate honour it
        self.suppressed = list(self.model.generation_config.suppress_tokens or [])
        self.__name__ = f"local:{Path(checkpoint).name}"
        self.template = None
        if history not in ("rollout", "chat"):
            raise ValueError(f"history must be 'rollout' or 'chat', not {history!r}")
        self.history = history
        self._sampled: dict[str, list[int]] = {}
        """reply text -> the ids sampled for it, end token included (this episode's replies)"""
        if agent_template:
            from swift.model import get_processor
            from swift.template import get_template

            processor = get_processor(str(checkpoint), model_type=model_type, download_model=False)
            self.template = get_template(
                processor, template_type=template_type, agent_template=agent_template
            )

    def prompt_ids(self, messages: list[dict[str, Any]], tools: list | None = None) -> list[int]:
        """The prompt's token ids, the assistant's turn opened: the tokenizer's chat template,
        or with an agent template ms-swift's template given `tools`. There an assistant message
        whose content holds its reply's text (as this policy and ms-swift's engines return it)
        is written from that text, as GRPO's requests hold it; one with only `tool_calls` (an
        oracle's) from the calls, which the agent template writes. An observation after tool
        results joins the last tool message, as the `swift_gym` scheduler sends it."""
        if self.template is None:
            return list(
                self.tokenizer.apply_chat_template(
                    messages, add_generation_prompt=True, tokenize=True, return_dict=True
                )["input_ids"]
            )
        shown: list[dict[str, Any]] = []
        for index, m in enumerate(messages):
            if m.get("role") == "assistant" and m.get("content"):
                m = {k: v for k, v in m.items() if k != "tool_calls"}
                ids = self._sampled.get(m["content"]) if self.history == "rollout" else None
                if ids is not None:  # as ms-swift's multi-turn loop keeps a sampled reply
                    m["content"] = self._kept_ids(m["content"], ids, messages[index + 1 :])
            elif m.get("role") == "user" and shown and shown[-1].get("role") == "tool":
                # the scheduler's form (ms_swift_tool_messages): ms-swift's templates take no
                # user turn after tool results, so the observation ends the last tool message
                last = shown[-1]
                text = f"{last['content']}\n\n{m['content']}" if last["content"] else m["content"]
                shown[-1] = {**last, "content": text}
                continue
            shown.append(m)
        inputs = {"messages": shown, "tools": list(tools) if tools else None}
        return list(self.template.encode(inputs)["input_ids"])

    def _kept_ids(self, text: str, ids: list[int], after: list[dict[str, Any]]) -> list[int]:
        """The ids the `swift_gym` scheduler keeps for a sampled reply: before a tool response
        less the end token the response writes again (`swift_gym.ms_swift.tool_turn_ids`)."""
        from swift_gym.ms_swift.tool_turn_ids import overlap, response_ids

        answers = []
        for m in after:
            if m.get("role") != "tool":
                break
            answers.append(m)
        if not answers:
            return list(ids)
        cut = overlap(list(ids), response_ids(self.template, text, answers))
        return list(ids[:-cut] if cut else ids)

    def __call__(self, messages: list[dict[str, Any]], env: Any = None) -> str | dict[str, Any]:
        torch = self.torch
        tools = list(env.tools()) if self.template is not None and env is not None else None
        ids = torch.tensor([self.prompt_ids(messages, tools)], device=self.device)
        if len(messages) <= 2:  # a new episode: earlier episodes' replies are not its history
            self._sampled.clear()
        new: list[int] = []
        end: list[int] = []
        past = None
        with torch.no_grad():
            step_input = ids
            for _ in range(self.max_new_tokens):
                out = self.model(input_ids=step_input, past_key_values=past, use_cache=True)
                past = out.past_key_values
                token = self._pick(out.logits[0, -1])
                if token in self.end_ids:
                    end = [token]
                    break
                new.append(token)
                step_input = torch.tensor([[token]], device=self.device)
        text = self.tokenizer.decode(new, skip_special_tokens=False)
        if self.template is None:
            return text
        self._sampled[text] = new + end
        return self.reply_message(text)

    def reply_message(self, text: str) -> str | dict[str, Any]:
        """`text` as ms-swift's engines return it with an agent template: the text, and the
        calls its parser finds as OpenAI `tool_calls`; the plain text when it finds none."""
        try:
            functions = self.template.agent_template.get_toolcall(text)
        except Exception:  # the engine, too, treats a reply it cannot parse as no call
            functions = []
        if not functions:
            return text
        calls = []
        for index, function in enumerate(functions):
            arguments = function.arguments
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            calls.append(ToolCall(f"call_{index}", function.name, arguments))
        return assistant_message(text, calls)

    def _pick(self, logits: Any) -> int:
        torch = self.torch
        if self.suppressed:
            logits = logits.clone()
            logits[self.suppressed] = float("-inf")
        if self.temperature <= 0:
            return int(logits.argmax())
        logits = logits.float() / self.temperature
        if self.top_k and self.top_k < logits.numel():
            kth = torch.topk(logits, self.top_k).values[-1]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        probs = torch.softmax(logits, dim=-1)
        if self.top_p < 1.0:
            sorted_probs, order = probs.sort(descending=True)
            keep = sorted_probs.cumsum(0) - sorted_probs < self.top_p
            probs = torch.zeros_like(probs).scatter(0, order[keep], sorted_probs[keep])
        return int(torch.multinomial(probs.float().cpu(), 1, generator=self.generator))
