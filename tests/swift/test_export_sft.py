"""`swift-gym export` makes a dataset `swift sft` trains on, and each of its conversations is the
one ms-swift's own gym schedulers build for the same episode.

The oracle plays FrozenLake through `swift-gym eval`, the records are exported, and a real
`swift sft` run (the tests' tiny model, on CPU, offline) trains a few steps on them.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run
from tiny_model import build_tiny_model

EPISODES = 16
STEPS = 3
ODD_REPLY = "<action>up</action> \x1b[2J\x00\u202e\u2028 \U0001f600"


def read_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as file:
        return [json.loads(line) for line in file]


def play(root: Path, name: str, *args: str) -> list[dict[str, Any]]:
    """`swift-gym eval frozen_lake ARGS -o NAME`: the records it wrote."""
    path = root / name
    result = run("eval", "frozen_lake", *args, "-o", str(path))
    assert result.returncode == 0, result.stderr
    return read_rows(path)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Oracle trajectories, plus one episode whose reply holds controls (kept) and one with a
    lone surrogate (skipped: pyarrow would refuse the whole file), exported to sft.jsonl."""
    root = tmp_path_factory.mktemp("export")
    records = play(root, "t.jsonl", "--policy", "oracle", "-n", str(EPISODES))
    assert [r["status"] for r in records] == ["goal"] * EPISODES
    odd, lone = json.loads(json.dumps(records[0])), json.loads(json.dumps(records[1]))
    odd["turns"][-1]["reply"] = ODD_REPLY
    lone["turns"][-1]["reply"] = "<action>up</action> \ud800"
    text = "".join(json.dumps(record) + "\n" for record in (odd, lone))
    (root / "odd.jsonl").write_text(text, encoding="utf-8")
    sft = root / "sft.jsonl"
    result = run("export", str(root / "t.jsonl"), str(root / "odd.jsonl"), "-o", str(sft))
    assert result.returncode == 0, result.stderr
    assert f"wrote {EPISODES + 1} rows" in result.stderr
    assert "skipped 1: 1 with a lone surrogate" in result.stderr
    return sft


@pytest.fixture(scope="module")
def trained(exported: Path) -> tuple[Path, Path, str]:
    """`swift sft` for a few steps on the export; (model, run folder, its log)."""
    root = exported.parent
    model = build_tiny_model(root / "model")
    swift = Path(sys.executable).with_name("swift")
    command = [
        str(swift), "sft", "--model", str(model), "--model_type", "qwen2",
        "--template", "qwen2_5", "--check_model", "false", "--dataset", str(exported),
        "--tuner_type", "full", "--torch_dtype", "float32", "--max_steps", str(STEPS),
        "--per_device_train_batch_size", "2", "--learning_rate", "1e-3",
        "--logging_steps", "1", "--save_strategy", "steps", "--save_steps", str(STEPS),
        "--report_to", "none", "--dataloader_num_workers", "0", "--dataset_num_proc", "1",
        "--output_dir", str(root / "output"),
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-4000:]
    (run_dir,) = (root / "output").iterdir()
    return model, run_dir, log


def test_swift_sft_trains_on_every_exported_row(trained: tuple[Path, Path, str]) -> None:
    model, run_dir, _ = trained
    logs = [json.loads(line) for line in (run_dir / "logging.jsonl").open()]
    losses = [log["loss"] for log in logs if "loss" in log]
    assert len(losses) == STEPS and all(math.isfinite(loss) and loss > 0 for loss in losses)
    # every row was loaded and encoded: none refused, none too long
    assert f"size={EPISODES + 1}" in logs[-1]["train_dataset"]
    checkpoint = run_dir / f"checkpoint-{STEPS}"
    assert _weights(checkpoint) != _weights(model)  # the steps changed the model


def _weights(folder: Path) -> dict[str, list[float]]:
    from safetensors.torch import load_file

    tensors = load_file(str(folder / "model.safetensors"))
    return {name: tensor.flatten()[:64].tolist() for name, tensor in tensors.items()}


def test_the_targets_are_the_replies_and_only_them(
    exported: Path, trained: tuple[Path, Path, str]
) -> None:
    # ms-swift logs the first sample it encoded: its labels, with the prompt parts masked out
    labels = re.search(r"\[LABELS\] (.*?)\n\n", trained[2], re.DOTALL)
    assert labels, "no [LABELS] in the swift sft log"
    targets = [part for part in re.split(r"\[-100 \* \d+\]", labels.group(1)) if part.strip()]
    conversations = [
        [m["content"] + "<|im_end|>\n" for m in row["messages"] if m["role"] == "assistant"]
        for row in read_rows(exported)
    ]
    assert [target + "\n" * (not target.endswith("\n")) for target in targets] in conversations


def test_controls_in_a_reply_are_kept_exactly(exported: Path) -> None:
    assert read_rows(exported)[-1]["messages"][-1] == {"role": "assistant", "content": ODD_REPLY}


def test_each_row_is_the_chat_ms_swift_builds_for_that_episode(
    scheduler_name: str, rows, run_rollout, tmp_path: Path
) -> None:
    """Replay each recorded episode's replies through ms-swift's scheduler: its conversation
    (earlier replies held as token ids, decoded here) is the exported row, message for message.
    Oracle episodes end at the goal; random ones also fall in holes or are cut off by
    max_turns, whose last observation the model never sees."""
    records = play(tmp_path, "oracle.jsonl", "--policy", "oracle", "-n", "4")
    records += play(tmp_path, "random.jsonl", "--policy", "random", "-n", "8", "--max-turns", "3")
    statuses = {record["status"] for record in records}
    assert {"goal", "max_turns"} <= statuses, statuses
    for name, max_turns in (("oracle.jsonl", 10), ("random.jsonl", 3)):
        recorded = read_rows(tmp_path / name)
        replies = {r["seed"]: [t["reply"] for t in r["turns"]] for r in recorded}

        def replay(request: Any, turn: int, replies: dict = replies) -> str:
            return replies[request.data_dict["env_config"]["seed"]][turn]

        requests = rows(*(record["env_config"] for record in recorded))
        outputs = run_rollout(scheduler_name, replay, requests, max_turns)
        result = run("export", str(tmp_path / name), "-o", "-")
        assert result.returncode == 0, result.stderr
        exported = [json.loads(line) for line in result.stdout.splitlines()]
        built = [{"messages": _decoded(output.messages)} for output in outputs]
        assert exported == built


def _decoded(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """ms-swift's messages with token-id contents decoded (the test engine's tokenizer is one
    character per id)."""
    return [
        {
            "role": m["role"],
            "content": m["content"]
            if isinstance(m["content"], str)
            else "".join(map(chr, m["content"])),
        }
        for m in messages
    ]
