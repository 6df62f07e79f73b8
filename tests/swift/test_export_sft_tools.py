"""`swift-gym export` of tool episodes makes a dataset `swift sft --agent_template hermes` trains
on: ms-swift 4.6 loads every agent row, renders each call as the model's `<tool_call>` target
and each result as a `<tool_response>` it only reads.

The records are hand-made in the shape `swift-gym eval -o` writes for tool envs
(`tests/tool_records.py`); the run is a real `swift sft` (the tests' tiny model, CPU, offline).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from cli_runner import run
from tiny_model import build_tiny_model
from tool_records import MOVE_TOOL, tool_record, write_records

EPISODES = 4


def test_swift_sft_trains_on_exported_tool_episodes(tmp_path: Path) -> None:
    records = write_records(tmp_path / "t.jsonl", [tool_record(k) for k in range(EPISODES)])
    sft = tmp_path / "sft.jsonl"
    result = run("export", str(records), "-o", str(sft))
    assert result.returncode == 0, result.stderr
    model = build_tiny_model(tmp_path / "model")
    swift = Path(sys.executable).with_name("swift")
    command = [
        str(swift), "sft", "--model", str(model), "--model_type", "qwen2",
        "--template", "qwen2_5", "--agent_template", "hermes", "--check_model", "false",
        "--dataset", str(sft), "--tuner_type", "full", "--torch_dtype", "float32",
        "--max_steps", "2", "--per_device_train_batch_size", "2", "--learning_rate", "1e-3",
        "--logging_steps", "1", "--save_strategy", "no", "--report_to", "none",
        "--dataloader_num_workers", "0", "--dataset_num_proc", "1",
        "--output_dir", str(tmp_path / "output"),
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-4000:]
    (run_dir,) = (tmp_path / "output").iterdir()
    logs = [json.loads(line) for line in (run_dir / "logging.jsonl").open()]
    assert f"size={EPISODES}" in logs[-1]["train_dataset"]  # every row loaded and encoded
    # ms-swift logs the first sample it encoded: the calls are targets, the results are not
    labels = re.search(r"\[LABELS\] (.*?)\n\n", log, re.DOTALL)
    assert labels, "no [LABELS] in the swift sft log"
    targets = "".join(re.split(r"\[-100 \* \d+\]", labels.group(1)))
    call = '<tool_call>\n{"name": "move", "arguments": {"direction": "down"}}\n</tool_call>'
    assert call in targets
    assert '{"name": "look", "arguments": {}}' in targets
    assert "I look, then go down." in targets
    assert "moved down" not in targets and "S.\n.G" not in targets  # read, never trained on
    inputs = re.search(r"\[INPUT\] (.*?)\[LABELS", log, re.DOTALL)
    assert inputs, log[-4000:]
    system, _, chat = inputs.group(1).split("\n[INFO")[0].partition("<|im_start|>user\n")
    assert "<tools>\n" + json.dumps(MOVE_TOOL) in system  # the tools offered, in the prompt
    assert re.sub(r"^start \d", "start N", chat.strip()) == (
        "start N<|im_end|>\n<|im_start|>assistant\nI look, then go down.<tool_call>\n"
        '{"name": "look", "arguments": {}}\n</tool_call>\n<tool_call>\n'
        '{"name": "move", "arguments": {"direction": "down"}}\n</tool_call><|im_end|>\n'
        "<|im_start|>user\n<tool_response>\nS.\n.G\n</tool_response>\n<tool_response>\n"
        "moved down\n</tool_response><|im_end|>\n<|im_start|>assistant\n<tool_call>\n"
        '{"name": "move", "arguments": {"direction": "right"}}\n</tool_call><|im_end|>'
    )  # the whole chat, as the hermes template renders it from the row
