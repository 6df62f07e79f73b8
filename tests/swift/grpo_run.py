"""A real, short `swift rlhf` GRPO run on CPU: the tests' tiny model, 2 steps, 2 completions.

`page_rlhf` runs a command block of docs/training.md (tests/doc_commands.py reads it) with only
the changes the page lists; `swift_rlhf` runs the tests' own command, for the runs the page
does not show.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import doc_commands
from tiny_model import build_tiny_model

CPU_FLAGS: dict[str, list[str] | None] = {
    "--use_vllm": ["false"], "--vllm_mode": None, "--vllm_gpu_memory_utilization": None,
    "--model_type": ["qwen2"], "--template": ["qwen2_5"], "--check_model": ["false"],
    "--num_generations": ["2"], "--per_device_train_batch_size": ["2"],
    "--max_completion_length": ["8"], "--num_train_epochs": None, "--max_steps": ["2"],
    "--torch_dtype": ["float32"], "--report_to": ["none"], "--logging_steps": ["1"],
    "--save_strategy": ["no"],
}  # fmt: skip
"""What every CPU run of a page's `swift rlhf` command changes (docs/training.md lists each)."""
GPU_ONLY_ENV = ("CUDA_VISIBLE_DEVICES", "NPROC_PER_NODE")


@dataclass(frozen=True)
class PageRun:
    """A page command's run: its output folder, its SWIFT_GYM_TRAJECTORIES folder (None when
    the page sets none) and the command line it ran."""

    run_dir: Path
    trajectories: Path | None
    argv: tuple[str, ...]


def page_rlhf(
    block: str,
    root: Path,
    *,
    model: Path,
    dataset: Path,
    max_turns: int,
    flags: Mapping[str, Sequence[str] | None] = {},
    env: Mapping[str, str] | None = None,
) -> PageRun:
    """The `swift rlhf` command of docs/training.md's block `block`, run on CPU for 2 steps:
    `CPU_FLAGS`, `model` for `--model`, `dataset` for the page's rows, `max_turns`,
    `swift_gym_total` after the page's `--reward_funcs` (ms-swift drops `--use_gym_env`'s column
    without vLLM), then `flags`; the page's output and trajectory folders under `root`.
    `env`: more environment for the run."""
    command = doc_commands.command(block, "swift", "rlhf")
    rewards = [*(command.value("--reward_funcs") or []), "swift_gym_total"]
    changes = {
        **CPU_FLAGS, "--model": [str(model)], "--max_turns": [str(max_turns)],
        "--reward_funcs": rewards, **flags,
    }  # fmt: skip
    (page_dataset,) = command.value("--dataset") or ()
    (page_output,) = command.value("--output_dir") or ()
    paths = {page_dataset: str(dataset), page_output: str(root / "output")}
    trajectories = None
    if "SWIFT_GYM_TRAJECTORIES" in command.env:
        trajectories = root / "trajectories"
        paths[command.env["SWIFT_GYM_TRAJECTORIES"]] = str(trajectories)
    dropped = [name for name in GPU_ONLY_ENV if name in command.env]
    sized = doc_commands.sized(command, flags=changes, paths=paths, drop_env=dropped)
    argv = (str(Path(sys.executable).with_name("swift")), *sized.argv[1:])
    assert "--external_plugins" not in argv
    result = run_rlhf(list(argv), {**sized.env, **(env or {})})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (run_dir,) = (root / "output").iterdir()
    return PageRun(run_dir, trajectories, argv)


def page_command(
    block: str, program: Sequence[str], paths: Mapping[str, str], flags: Mapping[str, Any] = {}
) -> list[str]:
    """Another command of a page's block (`swift-gym dataset`, `swift-gym report`), with the
    page's files replaced by `paths` and `flags` set; `swift-gym` is this venv's."""
    command = doc_commands.command(block, *program)
    sized = doc_commands.sized(command, flags=flags, paths=paths)
    assert not sized.env, sized.env
    return [str(Path(sys.executable).with_name(sized.argv[0])), *sized.argv[1:]]


def swift_rlhf(
    root: Path,
    dataset: Path,
    gym_env: str,
    max_turns: int,
    env: dict[str, str] | None = None,
    *,
    reward_funcs: tuple[str, ...] = ("swift_gym_total", "frozen_lake_format"),
    batch_size: int = 2,
    model: Path | None = None,
    args: Sequence[str] = (),
) -> Path:
    """Train 2 steps on `dataset` with the swift_gym scheduler; return the run's output folder
    (logging.jsonl, completions.jsonl). `env`: more environment for the run; `batch_size`:
    completions per step (2 of each prompt); `model`: a checkpoint to start from (default: a
    new tiny model); `args`: more `swift rlhf` arguments (`--agent_template hermes`; a repeated flag
    overrides the one above)."""
    model = model or build_tiny_model(root / "model")
    command = rlhf_command(root, dataset, gym_env, max_turns, reward_funcs, batch_size, model, args)
    assert "--external_plugins" not in command
    result = run_rlhf(command, env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (run_dir,) = (root / "output").iterdir()
    return run_dir


def rlhf_command(
    root: Path,
    dataset: Path,
    gym_env: str,
    max_turns: int,
    reward_funcs: Sequence[str],
    batch_size: int,
    model: Path,
    args: Sequence[str] = (),
) -> list[str]:
    """`swift_rlhf`'s command line (with no --external_plugins)."""
    swift = Path(sys.executable).with_name("swift")
    return [
        str(swift), "rlhf", "--rlhf_type", "grpo", "--use_vllm", "false",
        "--model", str(model), "--model_type", "qwen2", "--template", "qwen2_5",
        "--check_model", "false", "--dataset", str(dataset),
        "--multi_turn_scheduler", "swift_gym", "--gym_env", gym_env,
        "--max_turns", str(max_turns),
        "--reward_funcs", *reward_funcs,
        "--num_generations", "2", "--per_device_train_batch_size", str(batch_size),
        "--max_completion_length", "8", "--max_steps", "2", "--tuner_type", "full",
        "--torch_dtype", "float32", "--report_to", "none", "--logging_steps", "1",
        "--log_completions", "true", "--save_strategy", "no",
        "--output_dir", str(root / "output"), *args,
    ]  # fmt: skip


def run_rlhf(command: list[str], env: dict[str, str] | None = None) -> Any:
    """Run `command` in a new process without this one's SWIFT_GYM_ variables, plus `env`."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    environ.update(env or {})
    return subprocess.run(command, capture_output=True, text=True, timeout=900, env=environ)
