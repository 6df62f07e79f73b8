"""code.repair across event loops, as ms-swift drives it: in colocate GRPO `reset` runs on one
loop and the turns on another, and a cut-off episode may be closed on a third. The workspace's
pipes belong to the loop that started it, so the env keeps it on the background loop; without
that, the first step failed with "attached to a different loop" (found by the real `swift
rlhf` run, tests/swift/test_code_training.py)."""

from __future__ import annotations

import asyncio
import json

import swift_gym


def test_reset_step_and_close_on_three_loops_leave_no_process(bwrap: str) -> None:
    from swift_gym_code.repair_env import tasks

    from swift_gym.sandbox.process import live

    env = swift_gym.make({"name": "code.repair", "task_id": tasks()[0].id})
    asyncio.run(env.reset())
    arguments = json.dumps({"command": "echo $((6 * 7))"})
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": arguments}}
    step = asyncio.run(env.step([{"role": "assistant", "content": "", "tool_calls": [call]}]))
    (result,) = step.tool_results
    assert result.content.startswith("42\n") and step.done is False
    assert step.info["status"] == "playing" and live() != []
    asyncio.run(env.close())
    assert live() == []
