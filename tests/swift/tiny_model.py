"""A tiny random-weight Qwen2 model and a ChatML BPE tokenizer, built offline in seconds.

No hub is reachable here, so the tests make their own model: a byte-level BPE trained on a few
FrozenLake-like lines, and a 2-layer Qwen2 with hidden size 64 (~0.4 MB; 128 for vLLM). It is a
real model for ms-swift (`--model_type qwen2 --template qwen2_5`), it just knows nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']"
    " + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
CORPUS = [
    "<action>up</action> <action>down</action> <action>left</action> <action>right</action>",
    "You are at row 1, col 2. G F F F H S P",
    "system user assistant",
]


def build_tiny_model(
    out: Path,
    hidden_size: int = 64,
    *,
    corpus: Sequence[str] = (),
    added_tokens: Sequence[str] = (),
    vocab_size: int = 400,
    positions: int = 4096,
) -> Path:
    """Write tokenizer and model files into `out` and return it.

    vLLM's CPU attention wants a head size of 64: give `hidden_size=128` (2 heads) for it.
    `corpus`: more text for the BPE to learn (shorter prompts for a test that trains on them);
    `added_tokens`: strings that become one token each (a whole reply the model must learn to
    write, such as a tool call); `vocab_size`: the BPE's (a bigger corpus can use more);
    `positions`: `max_position_embeddings`, the context ms-swift's engines allow. With the
    defaults the tokenizer is the one every other test uses.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(CORPUS * 20 + list(corpus), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    if added_tokens:
        fast.add_tokens(list(added_tokens))
    fast.chat_template = CHATML
    fast.save_pretrained(out)
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(fast),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=positions,
        tie_word_embeddings=True,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    Qwen2ForCausalLM(config).save_pretrained(out)
    return out


def build_calling_model(out: Path, text: str) -> Path:
    """The tiny model, made to write `text` at every position, whatever the prompt: `text` is
    added to the tokenizer as one token, and the weights make that token win by a margin no
    sampling temperature overturns. For tests that need a real trainer's real engine to
    generate something exact (a tool call that its `--agent_template` parses).

    How: every embedding gets a constant 10 in dimension 0, no layer writes to dimension 0 (its
    rows of o_proj and down_proj are zero), so the final hidden state is large and positive
    there; the new token's embedding (tied with the output layer) has 1000 there, every other
    token 10, so its logit leads by about 8,000.
    """
    import torch
    from transformers import AutoTokenizer, Qwen2ForCausalLM

    build_tiny_model(out)
    tokenizer = AutoTokenizer.from_pretrained(out)
    tokenizer.add_tokens([text])
    tokenizer.save_pretrained(out)
    token = tokenizer.convert_tokens_to_ids(text)
    model = Qwen2ForCausalLM.from_pretrained(out)
    model.resize_token_embeddings(len(tokenizer))
    with torch.no_grad():
        embeddings = model.get_input_embeddings().weight
        embeddings[:, 0] = 10.0
        embeddings[token, 0] = 1000.0
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight[0, :] = 0.0
            layer.mlp.down_proj.weight[0, :] = 0.0
    model.save_pretrained(out)
    return out
