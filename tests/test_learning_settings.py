"""`benchmarks/learning/run.py --set KEY=VALUE`: one run's settings changed from the command line,
typed as each field is declared, and a wrong key or value refused with what to fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "learning"))

import run


def test_values_are_read_as_their_fields_types() -> None:
    changed = run.override(
        run.FULL, ["a_lr=1e-3", "a_grpo_steps=7", "a_format_epochs=2.5", "model_size=small"]
    )
    assert (changed.a_lr, changed.a_grpo_steps) == (0.001, 7)
    assert changed.a_format_epochs == 2.5  # a float field whose default is written as 10
    assert changed.model_size == "small"
    assert changed.b_lr == run.FULL.b_lr  # the rest as it was


def test_none_clears_an_optional_field_and_a_later_pair_wins() -> None:
    assert run.override(run.QUICK, ["sft_max_steps=none"]).sft_max_steps is None
    assert run.override(run.FULL, ["sft_max_steps=3"]).sft_max_steps == 3
    assert run.override(run.FULL, ["a_lr=1", "a_lr=2"]).a_lr == 2.0


@pytest.mark.parametrize(
    ("pair", "says"),
    [
        ("nope=1", "KEY one of model_size, seeds, eval_episodes"),
        ("a_lr", "expected KEY=VALUE"),
        ("a_grpo_steps=x", "a_grpo_steps takes int"),
        ("a_grpo_steps=none", "a_grpo_steps takes int"),  # not optional
    ],
)
def test_a_bad_pair_is_refused_naming_it(pair: str, says: str) -> None:
    with pytest.raises(SystemExit) as refused:
        run.override(run.FULL, [pair])
    assert pair in str(refused.value) and says in str(refused.value)


def recipe_commands(name: str) -> list[list[str]]:
    """The GPU recipe's commands, continuation lines joined, each split into words."""
    path = Path(__file__).resolve().parents[1] / "examples" / "learning_gpu" / name
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    return [line.split() for line in text.splitlines() if line and not line.startswith("#")]


def flag(words: list[str], name: str) -> str:
    return words[words.index(name) + 1]


@pytest.mark.parametrize(
    ("recipe", "steps", "generations", "prompts", "sft_epochs", "beta"),
    [
        ("experiment_a.sh", run.FULL.a_grpo_steps, run.FULL.a_generations, run.FULL.a_prompts,
         run.FULL.a_format_epochs, run.FULL.beta),
        ("experiment_b.sh", run.FULL.b_grpo_steps, run.FULL.b_generations, run.FULL.b_prompts,
         run.FULL.b_sft_epochs, run.FULL.beta),
        ("experiment_c.sh", run.FULL.c_grpo_steps, run.FULL.c_generations, run.FULL.c_prompts,
         run.FULL.c_format_epochs, run.FULL.beta),
    ],
)  # fmt: skip
def test_the_gpu_recipe_trains_as_the_pipeline_does(
    recipe: str, steps: int, generations: int, prompts: int, sft_epochs: float, beta: float
) -> None:
    """examples/learning_gpu is the pipeline with GPU flags and nothing else: the choices that
    made the CPU run learn (LEARNING.md, "What it took") must not drift apart from it."""
    commands = recipe_commands(recipe)
    (grpo,) = [c for c in commands if "rlhf" in c]
    (sft,) = [c for c in commands if "swift" in c and "sft" in c]  # the words, not in paths
    (rows,) = [c for c in commands if c[:2] == ["swift-gym", "dataset"]]
    settings = run.FULL
    assert float(flag(grpo, "--num_iterations")) == settings.iterations
    assert flag(grpo, "--scale_rewards") == settings.scale_rewards
    assert float(flag(grpo, "--beta")) == beta
    assert int(flag(grpo, "--max_steps")) == steps
    assert int(flag(grpo, "--num_generations")) == generations
    assert int(flag(grpo, "--per_device_train_batch_size")) == generations * prompts  # 1 GPU
    assert int(flag(grpo, "--max_turns")) == settings.max_turns
    assert float(flag(grpo, "--temperature")) == settings.temperature
    assert flag(grpo, "--multi_turn_scheduler") == "swift_gym"
    # vLLM's runs add the env's total as a reward column of their own unless told not to: beside
    # swift_gym_total it would count twice, and ms-swift refuses weights for two columns of three
    assert flag(grpo, "--use_vllm") == "true" and flag(grpo, "--use_gym_env") == "false"
    assert flag(grpo, "--reward_funcs") == "swift_gym_total"
    assert float(flag(sft, "--num_train_epochs")) == sft_epochs
    assert flag(grpo, "--seed") == flag(sft, "--seed") == "$SEED"  # one run per training seed
    row_sets = {rows[i + 1] for i, word in enumerate(rows) if word == "--set"}
    tool = recipe == "experiment_c.sh"
    for key, value in run.training_rewards(settings, tool=tool).items():
        assert f"{key}={value}" in row_sets, (recipe, key)
    if tool:  # every command that encodes a prompt does it through the same agent template
        assert "action_format=tool" in row_sets
        assert flag(grpo, "--agent_template") == flag(sft, "--agent_template")
        assert flag(grpo, "--agent_template") == settings.agent_template
        (evaluate,) = [c for c in commands if "benchmarks/learning/evaluate.py" in c]
        assert flag(evaluate, "--agent-template") == settings.agent_template
        assert "--tool" in next(c for c in commands if "format_episodes.py" in " ".join(c))
    else:
        assert "--agent_template" not in grpo
