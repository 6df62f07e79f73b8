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

With `tools=True` (experiment C, `action_format: tool` through `--agent_template hermes`) the
replies are the template's own text for a call of `move`, `<tool_call>\n{"name": "move",
"arguments": {"direction": "up"}}\n</tool_call>` and so on, one added token each (written by
ms-swift's hermes agent template here, not by hand), and the BPE is trained on what the template
shows the model: the system prompt with the tools block and the tool responses; the tools block
and the `<tool_response>` wrapping, the same in every episode, are added tokens too
(`hermes_fixed_texts`). Without them the call is ~20 BPE pieces and the tools block ~230.
A and B's model is built without any of it, byte for byte as before.
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


def hermes_texts() -> tuple[list[str], object]:
    """The four `move` calls as ms-swift's hermes agent template writes an assistant's tool
    call, and the template (it also renders the tools block and the tool responses)."""
    from swift.agent_template import agent_template_map

    hermes = agent_template_map["hermes"]()
    calls = [
        hermes._format_tool_calls(
            [{"role": "tool_call", "content": {"name": "move", "arguments": {"direction": a}}}]
        )
        for a in ACTIONS
    ]
    return calls, hermes


def hermes_fixed_texts() -> list[str]:
    """The text hermes adds around what the env wrote, the same in every episode: the tools
    block it appends to the system prompt (for FrozenLake's `move`) and the wrapping of a tool
    response. One token each: as BPE pieces, the tools block alone is ~230 tokens of every
    prompt, and on 2 shared cores the sequence length is what a training step costs."""
    import swift_gym
    from swift_gym.tools import offered_tools

    _, hermes = hermes_texts()
    env = swift_gym.make({"name": "frozen_lake", "action_format": "tool"})
    asyncio.run(env.reset())
    block = hermes._format_tools(list(offered_tools(env)), "")  # "\n\n# Tools\n\n..."
    return [block, "<tool_response>\n", "\n</tool_response>"]


def corpus(episodes: int = 300, tools: bool = False) -> list[str]:
    """Texts the model will read: FrozenLake's system prompt and observations of random walks on
    random 4x4 maps and the classic map, with ChatML role names. With `tools`, the episodes of
    `action_format: tool` as the hermes agent template renders them: the system prompt with
    its tools block, each observation in a `<tool_response>`."""
    import swift_gym

    replies = ACTION_TOKENS
    hermes = None
    if tools:
        replies, hermes = hermes_texts()
    texts = ["system user assistant"] * 50 + replies * 50
    if tools:  # as the template writes them, after <|im_start|>: no leading space
        texts += ["user", "assistant"] * 50
    rng = random.Random(0)
    for index in range(episodes):
        config = {"name": "frozen_lake", "seed": index}
        if index % 3 == 0:
            config["map"] = "SFFF/FHFH/FFFH/HFFG"
        if tools:
            config["action_format"] = "tool"
        env = swift_gym.make(config)
        observation, _, system_prompt = asyncio.run(env.reset())
        if hermes is not None:
            system_prompt = hermes._format_tools(list(env.tools()), system_prompt)
        texts += [system_prompt, observation]
        for _ in range(6):
            index_ = rng.randrange(len(ACTIONS))
            if hermes is None:
                reply: object = {"role": "assistant", "content": ACTION_TOKENS[index_]}
            else:
                reply = move_message(ACTIONS[index_])
            step = asyncio.run(env.step([reply]))
            observation, _, done, _ = step
            results = getattr(step, "tool_results", ())
            if hermes is not None and results:
                observation = hermes._get_tool_responses([{"content": r.content} for r in results])
            texts.append(observation)
            if done:
                break
    return texts


def move_message(direction: str) -> dict:
    """An assistant message calling `move` with `direction` (OpenAI's shape)."""
    from swift_gym.tools.choice import message

    return message("", [("call_0", "move", json.dumps({"direction": direction}))])


def build_model(out: Path, size: str = "tiny", seed: int = 0, tools: bool = False) -> dict:
    """Write a random-weight Qwen2ForCausalLM and its tokenizer into `out`; return a summary
    (parameter count, vocabulary size, shape). `tools`: the tokenizer of experiment C (the
    module docstring)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    out.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1000 if tools else 600,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus(tools=tools), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    replies = hermes_texts()[0] if tools else ACTION_TOKENS
    fast.add_tokens(replies + POSITION_TOKENS + (hermes_fixed_texts() if tools else []))
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
        # ms-swift's max_model_len. C's longest contexts: a reply of up to 4 calls of `move`
        # gets 4 error results and a user turn, ~200 tokens a turn; 10 such turns ran past
        # 2048 in a GRPO run, and ms-swift's engine raised and ended the training run
        max_position_embeddings=8192 if tools else 2048,
        tie_word_embeddings=True,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        bos_token_id=None,
    )
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = fast.eos_token_id
    model.generation_config.pad_token_id = fast.pad_token_id
    # never sampled: ms-swift 4.6's TransformersEngine strips the pad token from the ids it
    # returns (it pads finished sequences with it), so a sampled one vanished from the reply,
    # and its turn from training: nothing priced it, and C's runs drifted into replies of it
    # (empty to the env) until an episode made only of them had no trained token at all and
    # ms-swift's GRPO step raised (LEARNING.md, "What it took"). ms-swift copies this field of
    # the model's generation config into every request's; evaluation honours it too.
    model.generation_config.suppress_tokens = [fast.pad_token_id]
    model.save_pretrained(out)
    summary = {
        "size": size,
        "parameters": sum(p.numel() for p in model.parameters()),
        "vocab_size": len(fast),
        "hidden_size": hidden,
        "layers": layers,
        "heads": heads,
        "one_token_lines": len(replies) + len(POSITION_TOKENS),
    }
    if tools:
        summary["one_token_hermes_texts"] = len(hermes_fixed_texts())
        summary["tools"] = "hermes"
    (out / "swift_gym_learning.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    import sys

    args = [a for a in sys.argv[2:] if a != "--tools"]
    size = args[0] if args else "tiny"
    seed = int(args[1]) if len(args) > 1 else 0
    print(build_model(Path(sys.argv[1]), size, seed, tools="--tools" in sys.argv))
