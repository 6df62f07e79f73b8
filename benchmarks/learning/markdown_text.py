"""LEARNING.md: the run's tables, curves, episodes and commands, all from learning.json's
objects and the command log (so a rerun rewrites every number)."""

from __future__ import annotations

from pathlib import Path

from report import (
    by_seed,
    curve_table,
    episode_lines,
    interval,
    policy_table,
    spread_table,
    stage_table,
)


def goal_c(objs: list[dict]) -> str:
    """Experiment C's goal is A's: the same bar, reached by calling a tool."""
    return goal_a(objs)


def goal_a(objs: list[dict]) -> str:
    """Experiment A's goal, judged on every training seed."""
    results = []
    for seed, runs in by_seed(objs).items():
        start = next(o for o in runs if o["stage"] == "format warm start")
        end = next(o for o in runs if o["stage"] == "GRPO")
        reached = start["success_rate"] < 0.3 and end["success_rate"] >= 0.9
        results.append(
            (
                reached and "ended" not in end,
                f"seed {seed}: start {interval(start)}, after GRPO {interval(end)}"
                + ended_text(end),
            )
        )
    episodes, temperature = objs[0]["episodes"], objs[0]["temperature"]
    return verdict(
        f"success >= 0.9 over {episodes} episodes sampled at temperature {temperature:g}, "
        "from a start below 0.3",
        results,
    )


def goal_b(objs: list[dict]) -> str:
    """Experiment B's goal, judged on every training seed."""
    results = []
    for seed, runs in by_seed(objs).items():
        sft = next(o for o in runs if o["stage"].startswith("SFT"))
        end = next(o for o in runs if o["stage"].startswith("GRPO"))
        results.append(
            (
                end["ci_low"] > sft["ci_high"] and "ended" not in end,
                f"seed {seed}: SFT {interval(sft)}, GRPO {interval(end)} "
                f"({end['success_rate'] - sft['success_rate']:+.3f})" + ended_text(end),
            )
        )
    return verdict(
        "GRPO improves held-out success over SFT, non-overlapping 95% intervals", results
    )


def ended_text(obj: dict) -> str:
    """A stage whose training run did not finish says so (a goal is not reached by it)."""
    return f" (did not finish: {obj['ended']})" if "ended" in obj else ""


def verdict(goal: str, results: list[tuple[bool, str]]) -> str:
    """A goal's line: reached only if every seed reached it; each seed's numbers after it."""
    met = sum(reached for reached, _ in results)
    if met == len(results):
        word = "reached on every seed" if len(results) > 1 else "reached"
    else:
        word = f"not reached (reached on {met} of {len(results)} seeds)"
    return f"**Goal ({goal}): {word}.** " + "; ".join(text for _, text in results) + "."


def first_seed(objs: list[dict]) -> tuple[int, list[dict]]:
    """The lowest training seed and its stage objects (whose episodes and policy are shown)."""
    return next(iter(by_seed(objs).items()))


def curves(objs: list[dict]) -> dict[int, list[dict]]:
    return {o.get("seed", 0): o["curve"] for o in objs if "curve" in o}


def rollouts(steps: int, settings: dict) -> int:
    """How many rollouts a GRPO stage of `steps` optimizer steps played (one every
    `iterations` steps, the first at step 0)."""
    iterations = settings.get("iterations", 1)
    return -(-steps // iterations)


def learning_markdown(objs: list, files: dict, log: list, meta: dict) -> str:
    m = meta["model"]
    s = meta["settings"]
    invalid_price = s.get("invalid_action_reward", -0.1)  # runs before it was a setting: -0.1
    lines = [
        "# Proof that it trains: FrozenLake on a 2-core CPU, through ms-swift",
        "",
        "Written by `python benchmarks/learning/run.py"
        f"{' --quick' if meta['mode'] == 'quick' else ''}` (`tox -e learn`); every number "
        "below is read from `benchmarks/learning.json`, written by the same run. "
        f"Run started {meta['started']}, {meta['total_wall_s'] / 60:.1f} minutes in all, "
        f"{meta['threads']} CPU thread(s) per command{jobs_text(meta)}, Python {meta['python']}, "
        f"mode **{meta['mode']}**. Episodes turn by turn and the curves: "
        "[learning-report.html](learning-report.html) (`swift-gym report`).",
        "",
        f"The model: a Qwen2ForCausalLM built from scratch (`benchmarks/learning/model.py`), "
        f"{m['parameters']:,} parameters (hidden {m['hidden_size']}, {m['layers']} layers, "
        f"{m['heads']} heads), byte-level BPE tokenizer of {m['vocab_size']} tokens trained on "
        "FrozenLake's own text, each `<action>DIR</action>` one token, and so is each position "
        "line `You are at row R, col C.` (why: `model.py`, and below). ms-swift loads it with "
        "`--model_type qwen2 --template qwen2_5`.",
        "",
        f"Training seeds: {seeds_text(s)}. Each seed builds its own scratch model (the same "
        "tokenizer, weights drawn with the seed) and runs every stage with it (`--seed`, the "
        "format episodes' draws); the evaluation episodes and their sampling are the same for "
        "every seed, so what moves from seed to seed is training's. Each goal is judged on "
        "every seed; each stage's mean and spread across seeds stand beside the per-run 95% "
        "intervals. What is pinned and what still varies: the end of this page.",
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
        f"`invalid_action_reward: {invalid_price:g}`, replies read with "
        "`action_parsing: exact` (the tag alone; why: `run.py`, `Settings`); no step or hole "
        "shaping; advantages "
        f"`--scale_rewards {s.get('scale_rewards', 'group')}` (none: each episode's reward "
        "less its group's mean, not divided by the group's std), KL coefficient "
        f"beta {s['beta']:g} to the starting checkpoint. *stage wall s* is the wall time of "
        "the training command that made the checkpoint (a GRPO run that was cut off and went "
        "on from its newest checkpoint, `--resume_from_checkpoint` in the commands below, "
        "counts each earlier run up to that checkpoint too); *train steps* counts every "
        "optimizer step from the scratch model.",
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
            f"--multi_turn_scheduler swift_gym` for {s['a_grpo_steps']} optimizer steps: "
            f"{rollouts(s['a_grpo_steps'], s)} rollout(s) of {s['a_prompts']} row(s) x "
            f"{s['a_generations']} episodes, {s.get('iterations', 1)} optimizer steps on each "
            f"(`--num_iterations`), learning rate {s['a_lr']:g}, temperature "
            f"{s['temperature']:g}, reward `swift_gym_total`.",
            "",
            *stage_table(a),
            "",
            *spread_section(a),
            goal_a(a),
            "",
            "Learning curve (the episodes GRPO played, from the `SWIFT_GYM_TRAJECTORIES` files; "
            "mean reward is the training reward, "
            f"{invalid_price:g} per invalid reply included):",
            "",
            *curve_table(curves(a)),
            "",
        ]
        seed, runs = first_seed(a)
        policy = next(o for o in runs if "curve" in o).get("policy_by_position")
        if policy:
            lines += [
                f"What GRPO's policy of seed {seed} did in each cell, late in training (the "
                "episodes of steps "
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
            f"checkpoint on the same training seeds for {s['b_grpo_steps']} optimizer steps: "
            f"{rollouts(s['b_grpo_steps'], s)} rollout(s) of {s['b_prompts']} rows x "
            f"{s['b_generations']} episodes, {s.get('iterations', 1)} optimizer steps on each, "
            f"learning rate {s['b_lr']:g}. Every checkpoint plays the same held-out seeds, "
            "never trained on.",
            "",
            *stage_table(b),
            "",
            *spread_section(b),
            goal_b(b),
            "",
            "Learning curve of GRPO (training episodes):",
            "",
            *curve_table(curves(b)),
            "",
        ]
        lines += episode_section(files["B"])
    c = [o for o in objs if o["experiment"] == "C"]
    if c:
        lines += experiment_c_section(c, files["C"], s)
    lines += what_it_took()
    lines += what_varies(meta)
    pinned = " ".join(f"{k}={v}" for k, v in meta.get("pinned", {}).items())
    lines += [
        "## The commands, in order",
        "",
        "`$WORK` is the run's work directory; each command ran with "
        f"`OMP_NUM_THREADS={meta['threads']} HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1"
        f"{' ' + pinned if pinned else ''}`.",
        "",
        "| stage | s | command |",
        "| --- | ---: | --- |",
    ]
    for stage, command, seconds in log:
        shown = command.replace("|", "\\|")
        lines.append(f"| {stage} | {seconds:.0f} | `{shown}` |")
    lines.append("")
    return "\n".join(lines)


def jobs_text(meta: dict) -> str:
    """How the run was laid out: experiment runs at once (`--jobs`), and those read back from
    an earlier invocation's kept work dir (their wall times are that invocation's)."""
    jobs, resumed = meta.get("jobs", 1), meta.get("resumed_units", 0)
    text = f", {jobs} experiment runs at once" if jobs > 1 else ""
    if resumed:
        text += f", {resumed} run(s) read back from an earlier start with the same settings"
    if resumed and meta.get("first_started"):  # the run spans every start since its first
        text += f" (the run's first start: {meta['first_started']})"
    return text


def seeds_text(settings: dict) -> str:
    count = settings.get("seeds", 1)
    return "0" if count == 1 else f"0..{count - 1} ({count} runs of each experiment)"


def what_varies(meta: dict) -> list[str]:
    """What the pipeline pins, and what it cannot: fixed text about how the run is made."""
    return [
        "## What is pinned, and what still varies",
        "",
        "- *Pinned.* Every command runs with the same thread count "
        f"(`OMP_NUM_THREADS={meta['threads']}`), `PYTHONHASHSEED=0`, and torch's, MKL's and "
        "oneDNN's vector instructions fixed at AVX2 (`commands.py`, `PINNED`): left to "
        "themselves they use the widest the CPU has, and a 10-step training probe of this model "
        "ended with other weights under AVX-512 than under AVX2. The training commands run "
        "with `--full_determinism true` (transformers seeds everything and turns on torch's "
        "deterministic algorithms, which refuse an op that has none), evaluation with "
        "`torch.use_deterministic_algorithms(True)` and a seeded sampler, one episode at a "
        "time. Checked on 2026-12-02: two runs of `run.py --quick --only A --set "
        "a_grpo_steps=8` on one machine, under different CPU load, wrote byte-identical GRPO "
        "checkpoints and the same replies in every training episode. So does a GRPO run cut "
        "off and resumed (checked on 2026-12-05: C's warm start, 12 steps, SIGKILLed after "
        "its step-4 checkpoint and resumed from it, against one run straight through: the same "
        "replies in every rollout, byte-identical weights at step 12).",
        "- *Still varies between seeds, by design:* the scratch weights, the order SFT reads "
        "its rows, and every token GRPO samples. The spread tables above are that variation: "
        "a stage's mean over seeds is the result; one seed's number is one draw.",
        "- *Can still vary between machines or reruns of one seed:* ms-swift plays a rollout's "
        "episodes concurrently on one event loop, and which requests its engine batches "
        "together follows the order the episodes reach it; a different batch pads and sums "
        "differently, and one different token changes the rest of the run. A CPU without "
        "AVX2, another torch, transformers or ms-swift version, or another thread count "
        "changes the numerics too. A rerun of the earlier (unpinned, one-seed) pipeline from "
        "a clean export on another machine of the same kind gave held-out SFT 0.420 and GRPO "
        "0.415 against 0.210 and 0.255 committed, and the classic map 0.995 against 1.000: "
        "Experiment B's single numbers were one draw each, which is why every experiment now "
        "reports its spread over seeds.",
        "",
    ]


def spread_section(objs: list[dict]) -> list[str]:
    """How much each stage's numbers move from one training seed to the next."""
    return [
        "Across training seeds (the sample standard deviation of the seeds' success rates, "
        "beside each run's own 95% interval above):",
        "",
        *spread_table(objs),
        "",
    ]


def episode_section(files: dict[str, dict[str, str]]) -> list[str]:
    """The first seed's first evaluation episodes of each stage."""
    seed = min(files, key=int)
    lines = [
        f"Episodes before and after (seed {seed}: the first three evaluation episodes of each):",
        "",
    ]
    for tag, path in files[seed].items():
        lines += [f"*{tag}*:", "", *episode_lines(Path(path)), ""]
    return lines


def experiment_c_section(c: list[dict], files: dict, s: dict) -> list[str]:
    """Experiment C: A on the same map, each move a call of the tool `move`."""
    m = c[0].get("model") or {}
    agent = s.get("agent_template", "hermes")
    seed, runs = first_seed(c)
    grpo = next(o for o in runs if "curve" in o)
    lines = [
        "## Experiment C: the classic map, each move a tool call",
        "",
        "FrozenLake with `action_format: tool`: the episode offers one function, `move`, whose "
        "one parameter `direction` is an enum of the four directions, and a reply is a move "
        "only when it holds exactly one valid call of it (anything else is an invalid action, "
        f"priced {s.get('invalid_action_reward', -0.5):g} in the GRPO rows). Every stage "
        f"runs through ms-swift's `--agent_template {agent}` on the `qwen2_5` template: the "
        "system prompt carries the tools block the agent template writes, a reply "
        '`<tool_call>\\n{"name": "move", "arguments": {"direction": "down"}}\\n</tool_call>` '
        "is parsed by ms-swift's engine into `tool_calls` that the `swift_gym` scheduler "
        "hands to the env, and the env's tool result comes back as a `role: tool` message "
        "(a `<tool_response>`, no loss). Its own scratch model "
        f"(`model.py --tools`, {m.get('parameters', 0):,} parameters, "
        f"{m.get('vocab_size', 0)} tokens): the BPE is trained on the prompt and the tool "
        "responses as the agent template renders them, and each of the four call texts, "
        "written by ms-swift's hermes agent template, is one added token (a reply is that "
        "token and `<|im_end|>`, as in A). A and B keep their model.",
        "",
        f"Format warm start: `swift sft --agent_template {agent}`, {s['c_format_epochs']:g} "
        f"epochs on {s['c_format_episodes']} episodes of uniformly random valid calls "
        "(`format_episodes.py --tool`, exported by `swift-gym export` as ms-swift agent rows: "
        "`tools`, `tool_call` and `tool_response` messages). GRPO: `swift rlhf "
        f"--agent_template {agent} --multi_turn_scheduler swift_gym` for "
        f"{s['c_grpo_steps']} optimizer steps, {rollouts(s['c_grpo_steps'], s)} rollout(s) "
        f"of {s['c_prompts']} row(s) x {s['c_generations']} episodes, learning rate "
        f"{s['c_lr']:g}, on rows of "
        "`swift-gym dataset` given the env's tools "
        "(`swift-gym dataset` writes them for a tool env: ms-swift encodes the prompt it "
        "trains on from the row's `tools`). "
        "Evaluation encodes each prompt with ms-swift's own template object and parses each "
        "reply with the agent template's parser, as the engine does (`local_policy.py`).",
        "",
        *stage_table(c),
        "",
        *spread_section(c),
        goal_c(c),
        "",
        "Learning curve (the episodes GRPO played, from the `SWIFT_GYM_TRAJECTORIES` files, "
        "which hold each turn's `tool_calls` and `tool_results`):",
        "",
        *curve_table(curves(c)),
        "",
    ]
    policy = grpo.get("policy_by_position")
    if policy:
        lines += [
            f"What GRPO's policy of seed {seed} did in each cell (steps >= "
            f"{policy['from_step']:g}):",
            "",
            *policy_table(policy),
            "",
        ]
    return lines + episode_section(files)


def what_it_took() -> list[str]:
    """What the runs before this pipeline's settings showed: fixed text, not this run's numbers
    (the pipeline's own commands run by hand, one setting changed, 2026-12-01, 2 shared cores)."""
    return [
        "## What it took (earlier runs, not rerun here)",
        "",
        "These numbers come from the runs that led to the settings above, not from learning.json.",
        "",
        "- *The tokenizer.* With the position line as BPE pieces, GRPO on the classic map went "
        "from 0.020 to 0.085 in 250 steps and stopped there: the best policy that ignores its "
        "position (down or right at every cell wins about 3 times in 64). Late in training the "
        "model took the same actions in every cell. Trained directly on the oracle's action in "
        "random-walk contexts (a probe, not part of the pipeline), that model reached 0.89 "
        "accuracy in 150 steps of 32; with `You are at row R, col C.` one token, 1.0 in 100.",
        "- *One optimizer step per rollout* learned too slowly on this CPU, where a rollout of "
        "32 ten-turn episodes costs several optimizer steps of the model: with the one-token "
        "position line, about 0.1 training success after 120 rollouts. Four steps per rollout "
        "(`--num_iterations 4`, PPO's clip at 0.2) reached 0.9 after 50 rollouts.",
        "- *The learning rate and the warm start.* At 3e-3 a short run collapsed to invalid "
        "replies after its first step (KL 2.6). At 1e-3 after a 3-epoch format warm start, "
        "replies drifted to newlines (a valid `\\n<action>down</action>` rewards its leading "
        "newline too) and were all invalid within 35 rollouts; after a 10-epoch warm start the "
        "same run held. 3e-4 reached 0.05 in 150 rollouts (position-blind tokenizer).",
        "- *Advantages scaled by the group's std* (ms-swift's default) and KL 0.04: the first "
        "full run of these settings reached 0.95 training success by step 360, then collapsed "
        "into empty replies (success 0 by step 480): once 31 of 32 episodes win, the one slip "
        "gets an advantage of -5.5. The same settings run by hand at 1 thread did not "
        "collapse. Unscaled advantages with KL 0.04 learned nothing in 105 rollouts (the KL "
        "term outweighs the smaller advantages); with no KL, invalid replies crept up to 15%; "
        "with KL 0.01, 0.96 by rollout 50 and 0.97 to 1.0 from there to the end. With another "
        "seed and invalid replies priced at -0.1, empty replies at the first turn rose to 15% "
        "of the turns before receding (0.9 by rollout 95); priced at -0.5 they stayed under 2% "
        "and 0.92 came by rollout 50.",
        "- *Ending the reply.* With replies read by their first tag (the env's default), text "
        "after the tag cost nothing, and one run unlearned `<|im_end|>` after its action "
        "(probability 3e-6 at the end). ms-swift's engine still ended each turn within a "
        "token or two and training reached 0.82, but evaluate.py, which then sampled until "
        "`<|im_end|>`, wrote junk into the policy's history and measured 0.445. The GRPO rows "
        "now read replies with `action_parsing: exact`, and evaluate.py ends a reply at any of "
        "the checkpoint's end tokens, as ms-swift's engine does. With both, 600 steps took one "
        "run from 0.01 to 0.925 (95% interval 0.88 to 0.95), learning late (0.5 at step 380): the "
        "runs above learned at steps 200 to 450, so the pipeline trains for 1000.",
        "- *Shaping that did not help.* `hole_reward: -1` taught the model in 30 rollouts never "
        "to leave the start (up or left at (0,0): safe, reward 0, success 0). KL coefficient "
        "0.1 instead of 0.04 kept the policy near the random warm start (success at most 0.06 "
        "in 95 rollouts).",
        "- *Experiment B.* SFT for 2 epochs stopped on a plateau (held-out success 0.18 with "
        "this tokenizer; a 1M-parameter model, 0.24); 8 epochs got past it (0.265: the loss "
        "fell again after ~550 steps). No GRPO setting tried raised the training episodes' "
        "success: from the 2-epoch SFT, 1e-3 (4 rows x 8) fell from 0.23 to 0.06 in 70 "
        "rollouts and 3e-4 stayed at 0.2; from the 8-epoch SFT, 1e-3 (4 x 8) and 5e-4 (2 x 16) "
        "stayed near 0.3 for 100 rollouts, the second scoring 0.305 held out against the "
        "SFT's 0.265, inside each other's intervals. The pipeline's settings run for 1000 GRPO "
        "steps instead of 400 wandered between 0.12 and 0.58 training success (windows of 20 "
        "steps) with no trend, and scored 0.235 held out against the same SFT's 0.210. The "
        "model reads its position but not yet the map around it: half the SFT policy's "
        "failures are holes it walks into.",
        "- *Experiment A, three seeds (2026-12-05).* Seed 1 collapsed and did not come back. "
        "Its rollout of training step 168 had every reply valid (171 of 171 turns). Four "
        "optimizer steps on those episodes later, the policy no longer ended a reply after its "
        "tag: it wrote `<action>down</action>\\n<action>right</action>\\n` and ran into "
        "`--max_completion_length`, so 1 turn of 320 was valid in the next rollout, and 0 of "
        "65,900 in the 206 rollouts after it (to step 996). ms-swift logged KL to the warm start "
        "0.17 before and 5.8 after. Once every episode of a group is invalid, every reward is "
        "the same and the advantages are 0, so only the KL term (beta 0.01) pulls back, too "
        "weakly to bring back the end token. After 1000 steps it was evaluated at 0.010 (0.000 "
        "greedy), where it started: the evaluation reads a reply's first tag (the env's "
        "default), so its replies (`<action>up</action>` and three stray tokens) are moves "
        "there, and they play like the warm start's. Seeds 0 and 2 did not collapse. C seed "
        "0's jump in "
        "the same run (below) was the same failure, junk after `</tool_call>` where the end "
        "token was, but a fifth of its turns stayed valid (64 of 320 in the next rollout), so its "
        "episodes still differed in reward, and it came back. Not tried yet: A at C's half "
        "learning rate, or a reward that tells a reply that does not end from one that ends "
        "on a valid tag.",
        *what_it_took_c(),
        "",
    ]


def what_it_took_c() -> list[str]:
    """Experiment C's runs before its settings (2026-12-02, 2 cores shared with other jobs at
    a load of 4 to 9, so every stage ran several times slower than A's full run)."""
    return [
        "- *Experiment C, the tokenizer.* ms-swift 4.6's hermes agent template (on `qwen2_5`) "
        'writes a call as `<tool_call>\\n{"name": "move", "arguments": {"direction": "up"}}'
        "\\n</tool_call>`, appends a ~1,000-character tools block to the system prompt and "
        "wraps each tool result in `<tool_response>\\n...\\n</tool_response>`. With the "
        "four calls as added tokens and a BPE trained on that text, the prompt of a two-turn "
        "chat was 441 tokens (the tools block alone ~230: byte-level BPE does not merge across "
        "words) and `swift sft` of the warm start ran at 6 s a step on the shared cores (25 "
        "minutes for A's 250 steps); with the tools block and the response wrapping one added "
        "token each, 235 tokens.",
        "- *Experiment C, the warm start.* 10 epochs on 200 episodes of random valid calls "
        "(130 steps) ended at loss 0.47, which is ln 4 / 3 (a turn's trained tokens are the "
        "call, uniform over four, `<|im_end|>` and the newline): the format learned, nothing "
        "about the map. GRPO from it (400 steps, A's other settings) did not learn: training "
        "success stayed between 0.02 and 0.14 while invalid replies (empty ones, and BPE "
        "junk) rose from 1% to 20% by step 240 and 38% at step 260, KL to the warm start "
        "above 1; stopped there. A's lesson again (a 3-epoch warm start drifted into invalid "
        "replies at this learning rate, 10 epochs held): the warm start of 400 episodes, "
        "250 steps, as A's.",
        "- *Experiment C, 400 GRPO steps.* With A's 250-step warm start invalid replies stayed "
        "under 1% for all 400 steps (so the longer warm start is what held the format), but "
        "the rollouts found the goal rarely: training success 0.003 to 0.03 (windows of 40 "
        "steps) until step 200, then 0.05 to 0.09; evaluated, 0.010 -> 0.090 [0.058, 0.138], "
        "the late policy going down or right in every cell (about 0.45 and 0.35) whatever its "
        "position: where A stood at its step 100, before its jump (0.05 -> 0.88 in the next "
        "100 steps). A learned at steps 100 to 450 across runs and trains for 1000; C was cut "
        "to 400 to fit the shared CPU's time. The same GRPO command run on from that 400-step "
        "checkpoint (a second run: warmup, schedule and KL reference restarted there) did "
        "learn, as A does: training success 0.06 to 0.13 over its first 120 steps, then "
        "0.18, 0.34, 0.56, 0.72, 0.82 and 0.78 (windows of 20 steps) and 0.86 to 0.93 from "
        "its step 240. So C trains for A's 1000 steps; that run is not yet made in one piece. "
        "But evaluate.py scored that checkpoint 0.195 sampled and 0 greedy, where its last "
        "training episodes won 0.9: greedy, it goes up, down, down and then down into the "
        "hole at (2,0), where in training it went right.",
        "- *Experiment C, the history its rollouts wrote.* Logging the prompts ms-swift's "
        "engine encoded in a real `swift rlhf` run showed why: ms-swift's multi-turn loop "
        "keeps each reply as the token ids it sampled, `<|im_end|>` included, and its template "
        "drops that token's overlap with the chat separator before a user turn but not before "
        "a tool response, whose prompt opens with `<|im_end|>` again. So every rollout of a "
        "tool episode reads `<call><|im_end|><|im_end|>` where a chat reads "
        "`<call><|im_end|>`, and the policy had learned in that context (before a user turn, "
        "as in A and B, the two forms are the same tokens). evaluate.py now writes earlier "
        "replies as the rollouts keep them (`local_policy.py`, `--history rollout`; its "
        "prompts equal the logged ones id for id): the same checkpoint scored 0.94 sampled and "
        "1.00 greedy over 100 episodes, and 0.15 and 0.00 with a chat's history "
        "(`--history chat`). A model trained so meets the chat form when served "
        "(`swift deploy`, vLLM). The `swift_gym` scheduler now hands ms-swift such a reply "
        "without that end token (`swift_gym.ms_swift.tool_turn_ids`), so rollouts, training and "
        "a served chat read the same tokens (the three-seed run below is the first with it).",
        "- *Experiment C, the context.* The first run of the three seeds at once ended at step "
        "84 of seed 0's GRPO: ms-swift's engine raised `Input length (2048) leaves no room for "
        "generation`. Its replies had begun to hold two calls (`<call><call>`, within the 4 "
        "tokens a turn may take): each such turn gets an error result per call and a user turn "
        "of ~200 tokens, and 10 of them passed the 2048 positions the scratch model declared. "
        "ms-swift 4.6 does not end such an episode; it ends the training run. C's model now "
        "declares 8192 (rotary positions: no weights change); A and B's contexts stay far "
        "below 2048. Since 2026-12-05 the `swift_gym` scheduler ends such an episode before "
        "the turn that would not fit and the run goes on (`swift_gym.ms_swift.context_room`).",
        "- *Experiment C, the cost.* Without gradient checkpointing (the model's activations fit "
        "many times over) a GRPO step of C took 0.86 s against 0.92 s with 2 threads, and 1.20 "
        "s against 1.43 s with 1, with the same losses; two runs of 1 thread at once took "
        "1.33 and 1.37 s a step each, 1.3x the throughput of one run of 2 threads. So the "
        "pipeline runs two experiment runs at once with one thread each (`--jobs 2 "
        "--threads 1`).",
        "- *Experiment C, three seeds (2026-12-02, not yet a result).* With these settings no "
        "seed held the goal. Seed 0 learned (training success 0.89 and 0.91 in the windows of "
        "40 steps from step 320, all 32 episodes won at step 380) and then collapsed within "
        "7 rollouts into empty replies (`<|im_end|>` alone: 0.8 of the turns, every episode "
        "to max_turns by step 408, KL to the warm start from ~0.5 to 7); seed 2 drifted into "
        "invalid replies from step ~320 (0.67 of the turns, success 0 from step 360 to 1000); "
        "seed 1 rose late (0.22, 0.36 at steps 640 and 680). Seeds 0 and 1 then ended in "
        "ms-swift's GRPO trainer at steps 624 and 700 with `Size does not match at dimension "
        "1 expected index [32, 846, 1] to be no larger than self [32, 845, 651]` "
        "(`_get_logps_via_local_forward`), with many empty replies in the batch. A likely "
        "cause, read in ms-swift 4.6's code, not yet reproduced: it keeps the logits of the "
        "longest completion, finding each sample's first trained token with `argmax` over "
        "`labels != -100`; a sample with no trained token at all (an episode whose every reply "
        "was empty, if the template takes that lone `<|im_end|>` for the separator) reads "
        "index 0, the whole sequence, one more than the logits it slices. A's recipe is not "
        "stable for C: what to change (the learning rate once it wins, the KL coefficient, "
        "how an invalid reply is priced or ends the episode) is "
        "the next run's question. (The cause was another: two items below.)",
        "- *Experiment C, a larger KL coefficient (2026-12-03).* With the scheduler's end-token "
        "fix and beta 0.04 (4x A's), two seeds stayed at training success 0.01 to 0.05 for "
        "600 steps, held near the uniform warm start; seed 0 then rose (0.15 and 0.31 in the "
        "windows at steps 640 and 680) and the run was stopped there. Back to A's 0.01.",
        "- *Experiment C, the empty replies, found.* With beta 0.01 and the fix, seed 0 learned "
        "again (training success 0.88 at steps 240 to 280), then collapsed into empty replies "
        "(0.67 of the turns from step 320, success 0) and ms-swift raised the same size "
        "mismatch at step 416; seed 1 learned late (0.91 in the window at step 840, evaluated "
        "0.875 [0.822, 0.914]). The empty replies were the pad token: ms-swift 4.6's "
        "`TransformersEngine` pads finished sequences with `<|endoftext|>` and strips that "
        "token from the ids it returns, sampled or not, so a reply of it reached the env as "
        "empty text with no ids and its turn was trained on nothing: nothing priced it, and "
        "it grew. Checked: a model made to put all its probability on it got `token_ids []` and "
        "content `''` from ms-swift's engine, and other tokens with the pad token in its "
        "generation config's `suppress_tokens`. An episode of only such replies has no ids, "
        "ms-swift encodes its chat as text with no end token after the last reply, and that "
        "encoding has 0 trained tokens: the `argmax` of the size mismatch above. The models "
        "here now never sample the pad token (`model.py`).",
        "- *Experiment C, A's learning rate across seeds (2026-12-03).* With the pad token "
        "suppressed and A's 1000 steps at learning rate 1e-3, seeds 0 and 2 reached the goal "
        "(0.990 [0.964, 0.997] and 1.000 [0.981, 1.000], from 0.010 and 0.025), seed 0 steady "
        "from step 240. Seed 1 learned slowly and at step 650 left its policy within one "
        "rollout's 4 optimizer steps (grad norm 0.8, clipped ratio 0.04; KL to the warm start "
        "from 0.46 to 7.6) for replies of stray tokens, and recovered only in part: 0.255 "
        "[0.200, 0.320], a quarter of its evaluated replies invalid. Once every episode of a "
        "group is invalid, every reward is the same and the advantages are 0, so only the KL "
        "term pulls back. C now trains at half A's learning rate for 1500 steps (1.5x A's); "
        "the results above are the first run with it (A and B too).",
        "- *Experiment C at half the learning rate (2026-12-05).* Seed 1 held training success "
        "0.95 to 1.00 (windows of 100 steps) from step 500 to the end and was evaluated at "
        "0.990. Seed 0 won 0.95 to 0.99 of its training episodes (windows of 100 steps) from "
        "step 700; at step 1065 one gradient of norm 15 (clipped to 1) moved it (KL to the "
        "warm start 0.20 -> 0.55), and at step 1077 one rollout later its completions grew "
        "from 17 to 52 tokens, every episode of that rollout invalid (KL 3.7; training "
        "success 0.15 in the window of 25 steps from step 1075). It came back over 175 steps "
        "(0.50, 0.74 and 0.86 in the next three windows of 25, then 0.90 and 0.96 from step "
        "1225) and was evaluated at 0.925, 1.000 greedy: the same kind of jump as seed 1's at "
        "1e-3, smaller, and survived. What sets such a jump off is not known yet.",
    ]
