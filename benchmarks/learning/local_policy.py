"""Play a checkpoint in-process with transformers, as a `swift_gym.evaluate` policy.

Why not `swift deploy` + `swift-gym eval --policy openai`: on this 2-core machine each deploy
costs a server start-up per checkpoint and an HTTP round trip per turn, for a model whose turn
is two decoding steps. The library plays the same episodes with the same records and statistics
(`swift_gym.evaluate`), and the prompt is the same ChatML that ms-swift's `qwen2_5` template
writes (the tokenizer's chat template, checked in `tests/swift/test_learning_quick.py`). The GPU
recipe in `examples/learning_gpu/` uses `swift deploy` instead.

Sampling is seeded: one torch generator per evaluation, episodes played one at a time
(`concurrency=1`), so a rerun replays the same episodes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


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
        self.__name__ = f"local:{Path(checkpoint).name}"

    def __call__(self, messages: list[dict[str, Any]], env: Any = None) -> str:
        torch = self.torch
        ids = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )["input_ids"].to(self.device)
        new: list[int] = []
        past = None
        with torch.no_grad():
            step_input = ids
            for _ in range(self.max_new_tokens):
                out = self.model(input_ids=step_input, past_key_values=past, use_cache=True)
                past = out.past_key_values
                token = self._pick(out.logits[0, -1])
                if token in self.end_ids:
                    break
                new.append(token)
                step_input = torch.tensor([[token]], device=self.device)
        return self.tokenizer.decode(new, skip_special_tokens=False)

    def _pick(self, logits: Any) -> int:
        torch = self.torch
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
