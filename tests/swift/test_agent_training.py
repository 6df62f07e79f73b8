"""A real `swift rlhf` GRPO run training agent programs: the example `agent_openai_loop` (a plain
`openai` tool loop, installed as a distribution) through the `swift_gym` scheduler, with
`--agent_template hermes`: the command of docs/training.md ("An agent program"), as the page's
list of changes says, on the test's rows; the page's `swift-gym dataset` command runs on its own.

The tiny model is made to write one hermes call of `add` as its every token (2 per reply), so
ms-swift's engine parses real tool calls; the program gets them through its `openai` client,
runs them, and sends the results back in its next call. One row lets the program end by itself
(`max_calls: 1`); the other (`agent_marked`, the same program that also writes a line when it
starts and one in its `finally`) is cut off at --max_turns: when the run has ended, every
program that started has finished its cleanup.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from agent_sites import train_marked
from grpo_run import page_command

pytest.importorskip("agent_openai_loop", reason="pip install examples/agent_openai_loop")

HERMES_ADD = '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>'
MAX_TURNS = 2


def test_grpo_trains_the_openai_tool_loop_and_cut_off_programs_end(tmp_path: Path) -> None:
    from agent_openai_loop import ADD
    from tiny_model import build_calling_model

    model = build_calling_model(tmp_path / "model", HERMES_ADD)
    rows = [
        {"name": "agent_openai_loop", "seed": 0, "max_calls": 1},  # ends by itself
        {"name": "agent_marked", "seed": 1, "max_calls": 8},  # cut off at --max_turns
    ]
    marked = ("agent_marked", "agent_openai_loop", "CalculatorAgent")
    run = train_marked(tmp_path, marked, rows, [ADD], model, MAX_TURNS)
    records, marks, run_dir = run.records, run.marks, run.run_dir
    assert len(records) == 4  # 2 steps x 2 completions, one row a step
    names = {record["env"] for record in records}
    by_env = {name: [r for r in records if r["env"] == name] for name in names}
    assert sorted(by_env) == ["agent_marked", "agent_openai_loop"]
    call = {"name": "add", "arguments": json.dumps({"a": 1, "b": 2})}
    for record in by_env["agent_openai_loop"]:  # the program's one call: then it gives up
        assert record["observation"].startswith("What is ")
        assert [t["function"]["name"] for t in record["tools"]] == ["add"]
        (turn,) = record["turns"]
        assert [{k: c[k] for k in ("name", "arguments")} for c in turn["tool_calls"]] == [call] * 2
        assert turn["done"] is True and turn["info"]["status"] == "out_of_calls"
        assert all("ended before answering" in r["content"] for r in turn["tool_results"])
    for record in by_env["agent_marked"]:  # each call run, its result sent back, then cut off
        assert record["status"] == "max_turns" and len(record["turns"]) == MAX_TURNS
        for turn in record["turns"]:
            assert [c["name"] for c in turn["tool_calls"]] == ["add", "add"]
            assert [r["content"] for r in turn["tool_results"]] == ["3", "3"]
    started = marks.read_text().splitlines()
    assert started.count("start 1") == len(by_env["agent_marked"]) == 2
    assert started.count("end 1") == started.count("start 1")  # every cut-off program ended
    assert (run_dir / "completions.jsonl").exists()


def test_the_pages_rows_carry_the_tools_the_program_offers(tmp_path: Path) -> None:
    """The page's `swift-gym dataset agent_openai_loop` (2 rows): each row's program is started
    once to read the tools of its first call, which the `tools` column then holds."""
    from agent_openai_loop import ADD

    rows = tmp_path / "agent.jsonl"
    paths = {"agent.jsonl": str(rows)}
    command = page_command("agent", ("swift-gym", "dataset"), paths, {"-n": ["2"]})
    made = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    written = [json.loads(line) for line in rows.read_text().splitlines()]
    assert [row["env_config"] for row in written] == [
        {"name": "agent_openai_loop", "seed": seed} for seed in (0, 1)
    ]
    assert all(json.loads(row["tools"]) == [ADD] for row in written)
