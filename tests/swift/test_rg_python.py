"""reasoning-gym with the `python` tool (`tools: ["python"]`) through ms-swift 4.6.

1. A scripted engine through the `swift_gym` scheduler, on both of ms-swift's multi-turn paths
   (server `run()` and colocate `run_multi_turn`): the model's parsed calls reach the env, the
   code runs in a sandbox session (it prints its PID: 1, in the sandbox's own PID namespace),
   the answer it printed scores 1.0; episodes cut off at `max_turns` leave no sandbox.
2. A real `swift rlhf` GRPO run with `--agent_template hermes` on the tests' tiny model, made to
   write a hermes tool call as its every token (`calling_model`), so the trainer's own engine
   parses real calls and the episodes really start sandboxes; every episode is cut off at
   `--max_turns`, and when the run ends no process of any sandbox it started is left.

bubblewrap is started through a script (named by the sandbox's own `SWIFT_GYM_BWRAP`) that logs
each sandbox start and puts a mark in bubblewrap's environment and in the sandbox's (which every
process started inside inherits): scanning /proc for the mark finds every process of those
sandboxes, and no other helper's.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from pathlib import Path
from typing import Any

import jsonl_records
import pytest
import sandbox_marks
from scripted_tools import CharTokenizer, tool_call, tool_reply

import swift_gym

NAME = "reasoning_gym.basic_arithmetic"
CODE = """import os, re
from fractions import Fraction
value = eval(re.sub(r"(\\d+)", r"Fraction(\\1)", {expression!r}))
print("pid", os.getpid())
print(value)"""


@pytest.fixture
def marked_bwrap(bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """(environment, log, mark): the sandbox starts bubblewrap through a logging script that
    marks it (set here for in-process runs; pass the environment to a child process)."""
    from swift_gym.sandbox import availability

    mark = uuid.uuid4().hex
    script, log = sandbox_marks.marked_bwrap(tmp_path, bwrap, mark)
    environ = {"SWIFT_GYM_BWRAP": str(script)}
    monkeypatch.setenv("SWIFT_GYM_BWRAP", str(script))
    availability.bubblewrap.cache_clear()
    yield environ, log, mark
    availability.bubblewrap.cache_clear()


def marked_processes(mark: str) -> list[int]:
    """PIDs of every process whose environment holds the mark: bubblewrap and the sandbox's."""
    return sandbox_marks.marked(mark)


def python_call(code: str, call_id: str) -> Any:
    return tool_call("python", {"code": code}, call_id)


class SolvingEngine:
    """An in-process fake of an engine with `--agent_template`: it replies with a parsed call
    to `python` whose code computes the question, then (`answers`) with what the code printed;
    without `answers`, it calls python at every turn."""

    def __init__(self, answers: bool = True):
        self.answers = answers
        self.tokenizer = CharTokenizer()
        self.requests: list[Any] = []

    async def infer_async(self, request, request_config, **kwargs):
        self.requests.append(request)
        messages = request.messages
        calls: list[Any] = []
        if self.answers and messages[-1]["role"] == "tool":
            text = f"<answer>{messages[-1]['content'].splitlines()[-1]}</answer>"
        else:
            question = next(m["content"] for m in messages if m["role"] == "user")
            expression = question.removeprefix("Calculate ").rstrip(".")
            text = "Let me compute it."
            calls = [python_call(CODE.format(expression=expression), f"call_{len(messages)}")]
        return tool_reply(text, calls, model="solver")


def scheduler_on(engine: SolvingEngine, max_turns: int):
    from swift.rollout.multi_turn import multi_turns

    return multi_turns["swift_gym"](
        infer_engine=engine, max_turns=max_turns, gym_env=NAME, tokenizer=engine.tokenizer
    )


def rg_rows(rows, count: int, **config: Any):
    return rows(*({"name": NAME, "seed": seed, "tools": ["python"], **config}
                  for seed in range(count)))  # fmt: skip


def test_the_model_calls_python_in_a_sandbox_then_answers_what_it_printed(
    marked_bwrap, run_rollout, rows
) -> None:
    from swift_gym.sandbox.process import live

    _, log, mark = marked_bwrap
    engine = SolvingEngine()
    outputs = run_rollout("swift_gym", None, rg_rows(rows, 4), 5, scheduler=scheduler_on(engine, 5))
    assert len(outputs) == 4
    for output in outputs:
        infos = output.rollout_infos
        assert infos["env_error"] is None, infos["env_error"]
        assert infos["total_reward"] == 1.0 and infos["gym_done"] is True
        assert [tool["function"]["name"] for tool in infos["tools"]] == ["python"]
        ((call,), no_calls) = infos["tool_calls"]  # a call, then the answer
        ((printed,), no_results) = infos["tool_results"]
        assert call["name"] == "python" and no_calls == [] and no_results == []
        assert re.fullmatch(r"stdout:\npid 1\n-?\d+", printed["content"]), printed
        assert infos["step_infos"][-1]["status"] == "correct"
    assert log.read_text().splitlines() == ["sandbox"] * 4  # one session per episode
    first_turns = [r for r in engine.requests if r.messages[-1]["role"] == "user"]
    assert all([t["function"]["name"] for t in r.tools] == ["python"] for r in first_turns)
    assert live() == [] and marked_processes(mark) == []


def test_episodes_cut_off_at_max_turns_leave_no_sandbox(marked_bwrap, run_rollout, rows) -> None:
    from swift_gym.sandbox.process import live

    _, log, mark = marked_bwrap
    engine = SolvingEngine(answers=False)  # calls python at every turn: never answers
    outputs = run_rollout(
        "swift_gym", None, rg_rows(rows, 3, max_tool_calls=8), 2, scheduler=scheduler_on(engine, 2)
    )
    for output in outputs:
        infos = output.rollout_infos
        assert infos["gym_done"] is False and infos["env_error"] is None  # cut off, not ended
        assert len(infos["tool_results"]) == 2
        assert all(
            turn[0]["content"].startswith("stdout:\npid 1\n") for turn in infos["tool_results"]
        )
    assert log.read_text().splitlines() == ["sandbox"] * 3
    assert live() == [] and marked_processes(mark) == []


def test_the_scan_finds_a_live_sandbox_and_nothing_once_it_is_closed(marked_bwrap) -> None:
    """The /proc scan the other tests trust: it sees bubblewrap and the sandbox's interpreter
    while an episode's session lives."""
    _, _, mark = marked_bwrap

    async def episode() -> tuple[list[bytes], list[int]]:
        env = swift_gym.make({"name": NAME, "seed": 0, "tools": ["python"]})
        await env.reset()
        call = {"id": "c", "type": "function",
                "function": {"name": "python", "arguments": '{"code": "x = 1"}'}}  # fmt: skip
        await env.step([{"role": "assistant", "content": "", "tool_calls": [call]}])
        alive = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in marked_processes(mark)]
        await env.close()
        return alive, marked_processes(mark)

    alive, after = asyncio.run(episode())
    assert len(alive) == 2  # bwrap, and the interpreter it runs as the sandbox's PID 1
    (inside,) = [line for line in alive if b"bwrap" not in line.split(b"\0")[0]]
    assert b"import inside\0repl" in inside
    assert after == []


HERMES_CALL = (
    '<tool_call>\n{"name": "python", "arguments": {"code": "import os; print(\'pid\', '
    'os.getpid())"}}\n</tool_call>'
)
MAX_TURNS = 2


def test_grpo_with_hermes_plays_python_episodes_and_leaves_no_sandbox(
    marked_bwrap, tmp_path: Path
) -> None:
    """A real `swift rlhf` run: the tiny model, made to write a hermes tool call as its every
    token (2 per reply), has its calls parsed by the trainer's engine; each runs in the
    episode's sandbox session; every episode is cut off at --max_turns (no answer is ever
    given), and when the run has ended no process of any of its sandboxes is left."""
    from grpo_run import swift_rlhf
    from tiny_model import build_calling_model

    environ, log, mark = marked_bwrap
    model = build_calling_model(tmp_path / "model", HERMES_CALL)
    config = {"name": NAME, "tools": ["python"], "max_tool_calls": 32}
    tools = swift_gym.make(config).tools()
    dataset = tmp_path / "rows.jsonl"
    with dataset.open("w") as out:
        for seed in range(4):
            row = {
                "messages": [{"role": "user", "content": "<placeholder>"}],
                "tools": json.dumps(list(tools)),  # the prompt ms-swift encodes has them too
                "env_config": {**config, "seed": seed},
            }
            out.write(json.dumps(row) + "\n")
    trajectories = tmp_path / "trajectories"
    run_dir = swift_rlhf(
        tmp_path, dataset, NAME, MAX_TURNS,
        {**environ, "SWIFT_GYM_TRAJECTORIES": str(trajectories)},
        reward_funcs=("swift_gym_total",), model=model,
        args=["--agent_template", "hermes", "--max_completion_length", "2"],
    )  # fmt: skip
    assert marked_processes(mark) == []  # the run is over: none of its sandboxes is left
    (path,) = trajectories.iterdir()
    records = jsonl_records.records(path)
    assert len(records) == 4  # 2 steps x 2 completions
    assert log.read_text().splitlines() == ["sandbox"] * len(records)  # one per episode
    for record in records:
        assert record["status"] == "max_turns" and len(record["turns"]) == MAX_TURNS
        for turn in record["turns"]:
            assert [call["name"] for call in turn["tool_calls"]] == ["python", "python"]
            assert [result["content"] for result in turn["tool_results"]] == ["stdout:\npid 1"] * 2
    assert (run_dir / "completions.jsonl").exists()
