"""A real, short `swift rlhf` GRPO run on CPU: the tests' tiny model, 2 steps, 2 completions."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tiny_model import build_tiny_model


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
