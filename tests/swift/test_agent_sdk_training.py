"""A real `swift rlhf` GRPO run training an OpenAI Agents SDK agent: the example
`agent_openai_agents` (`Runner.run` over `OpenAIChatCompletionsModel`, one `@function_tool`
`add`), installed as a distribution, through the `swift_gym` scheduler with
`--agent_template hermes`: docs/training.md's agent program command, on rows that name the
SDK's envs (the page's changes for a CPU, as for `agent_openai_loop`).

The tiny model is made to write, as its every token (2 per reply), one hermes call of `add`
whose arguments are of the wrong type and one good one: ms-swift's engine parses 4 calls a
reply, the SDK runs each (the bad ones answer with the tool's error text, as the SDK does) and
sends the results back in its next call. One row's Runner stops by itself (`max_turns: 1`: the
SDK raises MaxTurnsExceeded, the program scores 0); the other (`agent_sdk_marked`, the same
program that writes a line when it starts and one in its `finally`) is cut off at ms-swift's
--max_turns: when the run has ended, every program that started has finished its cleanup.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_sites import train_marked

pytest.importorskip("agent_openai_agents", reason="pip install examples/agent_openai_agents")

BAD_ADD = '<tool_call>\n{"name": "add", "arguments": {"a": "one", "b": 2}}\n</tool_call>'
GOOD_ADD = '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>'
MAX_TURNS = 2


def sdk_tools() -> list[dict]:
    """The tools the SDK sends in its Chat Completions calls: what the rows' `tools` hold."""
    from agent_openai_agents import AGENT
    from agents.models.chatcmpl_converter import Converter

    return [Converter.tool_to_openai(tool) for tool in AGENT.tools]


def test_grpo_trains_the_agents_sdk_agent_and_cut_off_runners_end(tmp_path: Path) -> None:
    from tiny_model import build_calling_model

    model = build_calling_model(tmp_path / "model", BAD_ADD + GOOD_ADD)
    rows = [
        {"name": "agent_openai_agents", "seed": 0, "max_turns": 1},  # the Runner stops
        {"name": "agent_sdk_marked", "seed": 1, "max_turns": 8},  # cut off at --max_turns
    ]
    marked = ("agent_sdk_marked", "agent_openai_agents", "AgentsSdkCalculator")
    tools = sdk_tools()
    run = train_marked(tmp_path, marked, rows, tools, model, MAX_TURNS)
    records, marks, run_dir = run.records, run.marks, run.run_dir
    assert len(records) == 4  # 2 steps x 2 completions, one row a step
    by_env = {
        name: [r for r in records if r["env"] == name] for name in {r["env"] for r in records}
    }
    assert sorted(by_env) == ["agent_openai_agents", "agent_sdk_marked"]
    calls = [
        {"name": "add", "arguments": json.dumps(a)}
        for a in ({"a": "one", "b": 2}, {"a": 1, "b": 2})
    ]
    for record in records:
        assert record["observation"].startswith("What is ")
        assert record["system_prompt"].startswith("You are a careful calculator")
        assert record["tools"] == tools
        assert all(turn["info"].get("context_rewritten") is None for turn in record["turns"])
    for record in by_env["agent_openai_agents"]:  # one call; the SDK runs its tools, then stops
        (turn,) = record["turns"]
        assert [{k: c[k] for k in ("name", "arguments")} for c in turn["tool_calls"]] == calls * 2
        assert len({c["id"] for c in turn["tool_calls"]}) == 4  # ms-swift's ids: each its own
        assert turn["done"] is True and turn["reward"] == 0.0
        assert turn["info"]["status"] == "out_of_turns"
        assert turn["info"]["metrics"] == {"tool_calls": 2.0, "tool_errors": 2.0}
    for record in by_env["agent_sdk_marked"]:  # each call run, its result sent back, then cut off
        assert record["status"] == "max_turns" and len(record["turns"]) == MAX_TURNS
        for turn in record["turns"]:
            assert [c["name"] for c in turn["tool_calls"]] == ["add"] * 4
            contents = [r["content"] for r in turn["tool_results"]]
            assert contents[1::2] == ["3", "3"]
            assert all(c.startswith("Error: add takes integers a and b") for c in contents[::2])
    started = (marks.read_text()).splitlines()
    assert started.count("start 1") == len(by_env["agent_sdk_marked"]) == 2
    assert started.count("end 1") == started.count("start 1")  # every cut-off Runner ended
    assert (run_dir / "completions.jsonl").exists()
