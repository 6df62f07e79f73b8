"""Build a small Qwen2 model and its tokenizer from scratch, offline, sized for a 2-core CPU.

No model hub is reachable, so the learning runs start from a model made here. The tokenizer is
a byte-level BPE (so any text round-trips exactly, as ms-swift's templates need) trained on the
very words FrozenLake shows: its system prompt and observations. The four replies
`<action>up</action>` ... are added tokens, one token each, so a reply is one token plus
`<|im_end|>` and a turn costs two decoding steps. So is each observation's last line on a 4x4
map, `You are at row R, col C.`: measured here, a position-blind model is what GRPO got from
the tokenizer without them. With the line as BPE pieces (` row`, ` 2`, `,`, ` col`, ` 1`) the
~100K-parameter model learned the best policy that ignores its position (success 0.085 on the
classic map after 250 GRPO steps) and no further; trained directly on the oracle's action of
random-walk contexts, it reached 0.89 accuracy in 150 steps where the one-token line reached
1.0 in 100. ms-swift loads the result with `--model_type qwen2 --template qwen2_5`; the chat
template here writes the same ChatML.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
ACTIONS = ("up", "down", "left", "right")
ACTION_TOKENS = [f"<action>{a}</action>" for a in ACTIONS]
POSITION_SIDE = 4
POSITION_TOKENS = [
    f"You are at row {r}, col {c}." for r in range(POSITION_SIDE) for c in range(POSITION_SIDE)
]
"""The position line of every cell of a 4x4 map, one token each (other sizes keep BPE pieces)."""
CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']"
    " + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
SIZES = {
    # name: (hidden, layers, heads, kv heads, intermediate)
    "tiny": (64, 2, 2, 1, 128),
    "small": (128, 4, 4, 2, 512),
}


def corpus(episodes: int = 300) -> list[str]:
    """Texts the model will read: FrozenLake's system prompt and observations of random walks on
    random 4x4 maps and the classic map, with ChatML role names."""
    import swift_gym

    texts = ["system user assistant"] * 50 + ACTION_TOKENS * 50
    rng = random.Random(0)
    for index in range(episodes):
        config = {"name": "frozen_lake", "seed": index}
        if index % 3 == 0:
            config["map"] = "SFFF/FHFH/FFFH/HFFG"
        env = swift_gym.make(config)
        observation, _, system_prompt = asyncio.run(env.reset())
        texts += [system_prompt, observation]
        for _ in range(6):
            reply = rng.choice(ACTION_TOKENS)
            observation, _, done, _ = asyncio.run(
                env.step([{"role": "assistant", "content": reply}])
            )
            texts.append(observation)
            if done:
                break
    return texts


def build_model(out: Path, size: str = "tiny", seed: int = 0) -> dict:
    """Write a random-weight Qwen2ForCausalLM and its tokenizer into `out`; return a summary
    (parameter count, vocabulary size, shape)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    out.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus(), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    fast.add_tokens(ACTION_TOKENS + POSITION_TOKENS)
    fast.chat_template = CHATML
    fast.save_pretrained(out)
    hidden, layers, heads, kv_heads, intermediate = SIZES[size]
    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(fast),
        hidden_size=hidden,
        intermediate_size=intermediate,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        bos_token_id=None,
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = fast.eos_token_id
    model.generation_config.pad_token_id = fast.pad_token_id
    model.save_pretrained(out)
    summary = {
        "size": size,
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocab_size": len(fast),
        "hidden_size": hidden,
        "layers": layers,
        "heads": heads,
        "one_token_lines": len(ACTION_TOKENS) + len(POSITION_TOKENS),
    }
    (out / "swift_gym_learning.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    import sys

    size = sys.argv[2] if len(sys.argv) > 2 else "tiny"
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    print(build_model(Path(sys.argv[1]), size, seed))
