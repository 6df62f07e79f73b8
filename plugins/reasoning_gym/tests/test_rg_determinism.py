"""The same seed plays the same item in every process, which is what a dataset of seeds relies
on: true of every task but three, whatever PYTHONHASHSEED is."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from swift_gym_reasoning_gym.ids import TASKS

HASH_DEPENDENT = {"isomorphic_strings", "ransom_note", "polynomial_multiplication"}
"""reasoning-gym 0.1.25 tasks whose items differ between processes unless PYTHONHASHSEED is
fixed: their items depend on Python's string hashing (set order, most likely). The README
says so; with PYTHONHASHSEED set, they too repeat across processes."""

QUESTIONS = """
import json, swift_gym
from swift_gym_reasoning_gym import items
out = {}
for task in TASKS:
    extra = COMPOSITE if task == "composite" else {}
    env = swift_gym.make({"name": "reasoning_gym." + task, "seed": 3, "size": 4, **extra})
    out[task] = items.item_for(env.config, 3)[1]["question"]
print("\\nQUESTIONS " + json.dumps(out))
"""
COMPOSITE = {"datasets": [{"name": "chain_sum", "weight": 1.0, "config": {}},
                          {"name": "word_sorting", "weight": 1.0, "config": {}}]}  # fmt: skip


def questions(hash_seed, tmp_path):
    code = f"TASKS = {list(TASKS)!r}\nCOMPOSITE = {COMPOSITE!r}\n{QUESTIONS}"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    environ["PYTHONHASHSEED"] = str(hash_seed)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=environ,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    # some tasks print progress dots on stdout: the result is on its own marked line
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("QUESTIONS ")]
    return json.loads(line.removeprefix("QUESTIONS "))


def test_every_task_makes_the_same_item_in_another_process(tmp_path):
    first, second = questions(1, tmp_path), questions(2, tmp_path)
    differ = sorted(task for task in TASKS if first[task] != second[task])
    print("tasks whose items depend on PYTHONHASHSEED:", differ)
    assert differ == sorted(HASH_DEPENDENT)
