"""LEARNING.md: the run's tables, curves, episodes and commands, all from learning.json's
objects and the command log (so a rerun rewrites every number)."""

from __future__ import annotations

from pathlib import Path

from report import curve_table, episode_lines, interval, policy_table, stage_table


def goal_a(objs: list[dict]) -> str:
    start = next(o for o in objs if o["stage"] == "format warm start")
    end = next(o for o in objs if o["stage"] == "GRPO")
    reached = start["success_rate"] < 0.3 and end["success_rate"] >= 0.9
    return (
        f"**Goal (success >= 0.9 over {end['episodes']} episodes, from a start below 0.3): "
        f"{'reached' if reached else 'not reached'}.** Start {interval(start)}, after GRPO "
        f"{interval(end)} (sampled at temperature {end['temperature']:g})."
    )


def goal_b(objs: list[dict]) -> str:
    sft = next(o for o in objs if o["stage"].startswith("SFT"))
    end = next(o for o in objs if o["stage"].startswith("GRPO"))
    reached = end["ci_low"] > sft["ci_high"]
    verdict = "reached" if reached else "not reached"
    return (
        f"**Goal (GRPO improves held-out success over SFT, non-overlapping 95% intervals): "
        f"{verdict}.** SFT {interval(sft)}, GRPO {interval(end)}; difference "
        f"{end['success_rate'] - sft['success_rate']:+.3f}."
    )


def learning_markdown(objs: list, files: dict, log: list, meta: dict) -> str:
    m = meta["model"]
    s = meta["settings"]
    lines = [
        "# Proof that it trains: FrozenLake on a 2-core CPU, through ms-swift",
        "",
        "Written by `python benchmarks/learning/run.py"
        f"{' --quick' if meta['mode'] == 'quick' else ''}` (`tox -e learn`); every number "
        "below is read from `benchmarks/learning.json`, written by the same run. "
        f"Run started {meta['started']}, {meta['total_wall_s'] / 60:.1f} minutes in all, "
        f"{meta['threads']} CPU thread(s) per command, Python {meta['python']}, "
        f"mode **{meta['mode']}**. Episodes turn by turn and the curves: "
        "[learning-report.html](learning-report.html) (`swift-gym report`).",
        "",
        f"The model: a Qwen2ForCausalLM built from scratch (`benchmarks/learning/model.py`), "
        f"{m['parameters']:,} parameters (hidden {m['hidden_size']}, {m['layers']} layers, "
        f"{m['heads']} heads), byte-level BPE tokenizer of {m['vocab_size']} tokens trained on "
        "FrozenLake's own text, each `<action>DIR</action>` one token. ms-swift loads it with "
        "`--model_type qwen2 --template qwen2_5`.",
        "",
        "How it is measured: each checkpoint plays the episodes in-process through "
        "`swift_gym.evaluate` (`benchmarks/learning/evaluate.py`: the same ChatML prompt as "
        "ms-swift's template, seeded sampling, one episode at a time), at most "
        f"{s['max_turns']} turns an episode. *success* is sampled at temperature "
        f"{s['temperature']:g} (as GRPO samples), with the Wilson 95% interval; *greedy* is "
        "the same episodes decoded greedily. On the fixed map the env is deterministic, so "
        "greedy decoding plays one episode 200 times: its rate is 0 or 1 and its interval "
        "says nothing about chance. Evaluation plays the env's own rewards (1 at the goal, 0 "
        "otherwise), so mean reward is the success rate there. GRPO trains on the env's total "
        "reward (`swift_gym_total`) with one piece of shaping, set in its dataset rows: "
        "`invalid_action_reward: -0.1` (why: `run.py`, `TRAINING_REWARDS`); no step or hole "
        "shaping; KL coefficient "
        f"beta {s['beta']:g} to the starting checkpoint. *stage wall s* is the wall time of "
        "the training command that made the checkpoint; *train steps* counts every optimizer "
        "step from the scratch model.",
        "",
    ]
    a = [o for o in objs if o["experiment"] == "A"]
    if a:
        lines += [
            "## Experiment A: the classic map `SFFF/FHFH/FFFH/HFFG`",
            "",
            f"A format-only warm start (`swift sft`, {s['a_format_epochs']:g} epochs on "
            f"{s['a_format_episodes']} episodes of uniformly random valid actions: the model "
            "learns the reply format, nothing about the map), then `swift rlhf --rlhf_type grpo "
            f"--multi_turn_scheduler swift_gym` for {s['a_grpo_steps']} steps, "
            f"{s['a_prompts']} row(s) x {s['a_generations']} episodes per step, learning rate "
            f"{s['a_lr']:g}, temperature {s['temperature']:g}, reward `swift_gym_total`.",
            "",
            *stage_table(a),
            "",
            goal_a(a),
            "",
            "Learning curve (the episodes GRPO played, from the `SWIFT_GYM_TRAJECTORIES` files; "
            "mean reward is the training reward, -0.1 per invalid reply included):",
            "",
            *curve_table(next(o for o in a if "curve" in o)["curve"]),
            "",
        ]
        policy = next(o for o in a if "curve" in o).get("policy_by_position")
        if policy:
            lines += [
                "What GRPO's policy did in each cell, late in training (the episodes of steps "
                f">= {policy['from_step']:g}; each row the share of each action). A policy that "
                "reads its position takes different actions in different cells; the optimal ones "
                "are down at (0,0), (1,0), (2,1), right at (2,0), (3,1), (3,2), or by the top "
                "row right, right, down, down, down, right.",
                "",
                *policy_table(policy),
                "",
            ]
        lines += episode_section(files["A"])
    b = [o for o in objs if o["experiment"] == "B"]
    if b:
        lines += [
            "## Experiment B: random 4x4 maps, held-out seeds",
            "",
            f"`swift sft` from the scratch model on the oracle's episodes of training seeds "
            f"0..{s['b_train_seeds'] - 1} ({s['b_sft_epochs']:g} epochs), then GRPO from that "
            f"checkpoint on the same training seeds for {s['b_grpo_steps']} steps, "
            f"{s['b_prompts']} rows x {s['b_generations']} episodes per step, learning rate "
            f"{s['b_lr']:g}. Every "
            "checkpoint plays the same held-out seeds, never trained on.",
            "",
            *stage_table(b),
            "",
            goal_b(b),
            "",
            "Learning curve of GRPO (training episodes):",
            "",
            *curve_table(next(o for o in b if "curve" in o)["curve"]),
            "",
        ]
        lines += episode_section(files["B"])
    lines += [
        "## The commands, in order",
        "",
        "`$WORK` is the run's work directory; each command ran with "
        f"`OMP_NUM_THREADS={meta['threads']} HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1`.",
        "",
        "| stage | s | command |",
        "| --- | ---: | --- |",
    ]
    for stage, command, seconds in log:
        shown = command.replace("|", "\\|")
        lines.append(f"| {stage} | {seconds:.0f} | `{shown}` |")
    lines.append("")
    return "\n".join(lines)


def episode_section(files: dict[str, Path]) -> list[str]:
    lines = ["Episodes before and after (the first three evaluation episodes of each):", ""]
    for tag, path in files.items():
        lines += [f"*{tag}*:", "", *episode_lines(Path(path)), ""]
    return lines
