"""The pipeline's stages, each one real command: make data, fine-tune, train with GRPO,
evaluate. Each returns what the next stage and the report need (paths, steps, seconds)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from commands import Commands

MODEL_ARGS = ["--model_type", "qwen2", "--template", "qwen2_5", "--check_model", "false"]
CPU_ARGS = [
    "--tuner_type", "full", "--torch_dtype", "float32", "--report_to", "none",
    "--dataloader_num_workers", "0", "--dataset_num_proc", "1",
    "--logging_steps", "1", "--save_only_model", "true", "--full_determinism", "true",
    "--gradient_checkpointing", "false",
]  # fmt: skip
"""`--full_determinism`: transformers' Trainer seeds everything and turns on torch's
deterministic algorithms (`torch.use_deterministic_algorithms`), which refuses an op that has
none rather than run a nondeterministic one. `--gradient_checkpointing false`: the small model's
activations fit many times over, and recomputing them made a GRPO step of experiment C 6%
slower (1 thread: 19%) with the same losses to the last digit."""


@dataclass
class Trained:
    """A training stage's result: the checkpoint, its optimizer steps, the wall time; `ended`
    says how ms-swift ended a run that did not finish (then `checkpoint` is its newest)."""

    checkpoint: Path
    steps: int
    wall_s: float
    run_dir: Path
    ended: str | None = None


SAVE_EVERY = 100
"""GRPO saves a checkpoint every this many optimizer steps (keeping the newest, with the
optimizer's and the schedule's state), so a run that ms-swift ends with an error still has a
checkpoint to evaluate, and a run cut off goes on from it (`resume_point`). A multiple of
`--num_iterations` (4): a resumed run plays its rollouts at the same steps."""
ERROR_LINE = re.compile(r"^(\w+(?:Error|Exception)): (.*)$", re.MULTILINE)
PROGRESS = re.compile(r"(\d+)/(\d+) \[")
RESUMED_FROM = re.compile(r"--resume_from_checkpoint \S*checkpoint-(\d+)")
DURATION = re.compile(r"(?:(\d+)d)? ?(?:(\d+)h)? ?(?:(\d+)m)? ?(?:(\d+)s)?")
"""ms-swift's `elapsed_time` (`swift.utils.format_time`): "1d 2h 3m 4s", "8m 20s", "35s"."""


def sets(config: dict) -> list[str]:
    """env_config fields as `--set KEY=VALUE` arguments."""
    out: list[str] = []
    for key, value in config.items():
        out += ["--set", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    return out


def checkpoints(output_dir: Path) -> list[tuple[int, int, Path]]:
    """ms-swift writes output_dir/v<N>-<time>/checkpoint-<step>, a new v<N> each time the
    command runs: (step, N, path) of each checkpoint, oldest first."""
    found = []
    for path in output_dir.glob("v*-*/checkpoint-*"):
        version, step = path.parent.name[1:].split("-")[0], path.name.split("-")[-1]
        if version.isdigit() and step.isdigit():
            found.append((int(step), int(version), path))
    return sorted(found)


def last_checkpoint(output_dir: Path) -> tuple[Path, Path, int]:
    """The run dir, the newest checkpoint (the most steps; of the latest run on a tie) and its
    step."""
    found = checkpoints(output_dir)
    if not found:
        raise RuntimeError(f"no checkpoint in {output_dir}")
    step, _, path = found[-1]
    return path.parent, path, step


def resume_point(output_dir: Path) -> Path | None:
    """The newest checkpoint a cut-off GRPO run can go on from: one that holds the trainer's
    state (written after the optimizer's), or None."""
    for _, _, path in reversed(checkpoints(output_dir)):
        if (path / "trainer_state.json").is_file() and (path / "optimizer.pt").is_file():
            return path
    return None


def keep_trajectories_before(trajectories: Path, step: int) -> None:
    """Drop the training episodes of `step` and later (a resumed run plays them again), and
    any line a killed writer left half written."""
    for path in sorted(trajectories.rglob("*.jsonl")):
        kept = []
        for line in path.read_text(errors="replace").splitlines(keepends=True):
            try:
                played = json.loads(line).get("training", {}).get("step")
            except (ValueError, AttributeError):
                continue
            if isinstance(played, int) and played < step:
                kept.append(line)
        path.write_text("".join(kept))


def earlier_seconds(log: Path) -> float:
    """The seconds the earlier runs of a resumed command trained to reach the checkpoint the
    next one went on from (ms-swift's `elapsed_time` at that step: training, not start-up),
    from the stage's log, which holds every run, each after its `$ command` line."""
    if not log.is_file():
        return 0.0
    runs = re.split(r"^\$ ", log.read_text(errors="replace"), flags=re.MULTILINE)[1:]
    heads = [RESUMED_FROM.search(run.split("\n", 1)[0]) for run in runs]
    fresh = max((i for i, head in enumerate(heads) if head is None), default=0)
    total = 0.0  # from the last run that went on from nothing: what came before is not its time
    for earlier, resumed in zip(runs[fresh:], heads[fresh + 1 :], strict=False):
        at = re.findall(
            rf"'global_step/max_steps': '{resumed.group(1)}/\d+', 'elapsed_time': '([^']+)'",
            earlier,
        )
        duration = DURATION.fullmatch(at[-1].strip()) if at else None
        if duration is not None:
            d, h, m, sec = (int(part or 0) for part in duration.groups())
            total += 86400 * d + 3600 * h + 60 * m + sec
    return total


def sft(
    cmd: Commands, stage: str, model: Path, dataset: Path, out: Path,
    epochs: float, lr: float, batch: int, seed: int, max_steps: int | None = None,
    extra: tuple[str, ...] = (),
) -> Trained:  # fmt: skip
    """`swift sft` (full fine-tune) on `dataset` with training seed `seed`, saving once at the
    end. `extra`: more arguments (experiment C's `--agent_template hermes`)."""
    steps_args = ["--max_steps", str(max_steps)] if max_steps else []
    command = [
        cmd.bin("swift"), "sft", "--model", str(model), *MODEL_ARGS, "--dataset", str(dataset),
        "--num_train_epochs", str(epochs), *steps_args, "--per_device_train_batch_size", str(batch),
        "--learning_rate", str(lr), "--lr_scheduler_type", "cosine", "--warmup_ratio", "0.05",
        "--split_dataset_ratio", "0", "--save_strategy", "epoch", "--save_total_limit", "1",
        *extra, *CPU_ARGS, "--seed", str(seed), "--output_dir", str(out),
    ]  # fmt: skip
    if max_steps:
        command[command.index("epoch")] = "steps"
        command += ["--save_steps", str(max_steps)]
    seconds = cmd.run(stage, command)
    run_dir, checkpoint, steps = last_checkpoint(out)
    return Trained(checkpoint, steps, seconds, run_dir)


def grpo(
    cmd: Commands, stage: str, model: Path, dataset: Path, out: Path, trajectories: Path,
    steps: int, generations: int, prompts: int, lr: float, beta: float, max_turns: int,
    temperature: float, seed: int, iterations: int = 1, scale_rewards: str = "group",
    extra: tuple[str, ...] = (),
) -> Trained:  # fmt: skip
    """`swift rlhf --rlhf_type grpo --multi_turn_scheduler swift_gym` with the env's reward
    (`swift_gym_total`); the scheduler writes every training episode to `trajectories`.
    Each rollout plays `prompts` dataset rows, `generations` episodes each (the GRPO groups),
    and trains `iterations` optimizer steps on them (`--num_iterations`, PPO's clipped ratio
    keeps the later ones near the policy that played): `steps` counts optimizer steps, so the
    run plays `steps / iterations` rollouts. On this CPU a rollout costs several times an
    optimizer step of the small model, and one step per rollout learned too slowly.
    `scale_rewards` is ms-swift's advantage scaling: "group" divides by each group's reward
    std, which late in training (31 wins and one slip) turns a 0.1 difference into advantages
    of 5, and collapsed a run into empty replies; "none" leaves r - mean (with a smaller KL
    coefficient, as the unscaled advantages are smaller). LEARNING.md, "What it took".

    Rewards: the env's total (`swift_gym_total`); the dataset rows add
    `invalid_action_reward` (run.py's Settings). `swift_gym_success` (weight 0) only logs the
    success rate. `extra`: more arguments (experiment C's `--agent_template hermes`).
    `frozen_lake_format` is left out: in ms-swift's multi-turn rollouts the
    earlier assistant turns reach reward functions as token ids, so it scores only the last
    turn (its mean was ~0.3, about 1/turns, in a first run), which rewards short episodes,
    holes included.
    """
    resume = None if cmd.finished(stage) else resume_point(out)
    if resume is not None:
        keep_trajectories_before(trajectories, int(resume.name.split("-")[-1]))
    saving = [*CPU_ARGS]
    saving[saving.index("--save_only_model") + 1] = "false"  # the state to go on from
    command = [
        cmd.bin("swift"), "rlhf", "--rlhf_type", "grpo", "--use_vllm", "false",
        "--model", str(model), *MODEL_ARGS, "--dataset", str(dataset),
        "--multi_turn_scheduler", "swift_gym", "--gym_env", "frozen_lake",
        "--max_turns", str(max_turns),
        "--reward_funcs", "swift_gym_total", "swift_gym_success",
        "--reward_weights", "1", "0", "--num_generations", str(generations),
        "--per_device_train_batch_size", str(generations * prompts),
        "--max_completion_length", "4", "--temperature", str(temperature),
        "--beta", str(beta), "--learning_rate", str(lr), "--max_steps", str(steps),
        "--num_iterations", str(iterations), "--scale_rewards", scale_rewards,
        "--warmup_ratio", "0.05",
        "--save_strategy", "steps", "--save_steps", str(min(SAVE_EVERY, steps)),
        "--save_total_limit", "1", *extra, *saving,
        "--seed", str(seed), "--output_dir", str(out),
    ]  # fmt: skip
    if resume is not None:
        command += ["--resume_from_checkpoint", str(resume)]
    try:
        seconds = cmd.run(stage, command, {"SWIFT_GYM_TRAJECTORIES": str(trajectories)})
    except RuntimeError as error:
        return ended_early(cmd, out, str(error))
    run_dir, checkpoint, done = last_checkpoint(out)
    return Trained(checkpoint, done, seconds + earlier_seconds(cmd.log_path(stage)), run_dir)


def ended_early(cmd: Commands, out: Path, error: str) -> Trained:
    """A GRPO run ms-swift ended with an error: its newest checkpoint, and what ended it (the
    error's last line, the step it reached). Raises again when it saved none."""
    try:
        run_dir, checkpoint, saved = last_checkpoint(out)
    except (RuntimeError, ValueError):
        raise RuntimeError(error) from None
    errors = ERROR_LINE.findall(error)
    reached = PROGRESS.findall(error)
    what = f"`{errors[-1][0]}: {errors[-1][1][:160]}`" if errors else "an error"
    where = f" at step {reached[-1][0]} of {reached[-1][1]}" if reached else ""
    ended = f"ms-swift ended the run with {what}{where}; evaluated its step-{saved} checkpoint"
    seconds = cmd.log[-1][2] + earlier_seconds(cmd.log_path(cmd.log[-1][0]))
    return Trained(checkpoint, saved, seconds, run_dir, ended)


def evaluate(
    cmd: Commands, stage: str, checkpoint: Path, config: dict, episodes: int, seed_start: int,
    temperature: float, out: Path, extra: tuple[str, ...] = (),
) -> tuple[dict, dict, Path]:  # fmt: skip
    """Play `episodes` episodes (seeds `seed_start`...) with the checkpoint, sampled at
    `temperature` and then greedily; (sampled summary, greedy summary, sampled episodes).
    `extra`: more arguments of evaluate.py (experiment C's `--agent-template hermes`)."""
    records, summary = out.with_suffix(".jsonl"), out.with_suffix(".json")
    greedy = out.with_name(out.name + "-greedy")
    cmd.run(stage, [
        *cmd.script("evaluate.py"), str(checkpoint), *sets(config), "-n", str(episodes),
        "--seed-start", str(seed_start), "--temperature", str(temperature),
        "-o", str(records), "--json", str(summary), "--greedy", str(greedy), *extra,
    ])  # fmt: skip
    sampled = json.loads(summary.read_text())
    return sampled, json.loads(greedy.with_suffix(".json").read_text()), records
