"""The `mcp_tools` env through ms-swift 4.6: a stdio and an HTTP MCP server, real ones.

1. A scripted engine through the `swift_gym` scheduler on both of ms-swift's multi-turn paths
   (server `run()`; colocate, whose `on_trajectory_start` runs on a loop of its own, so the
   sessions opened in reset must outlive it): the model's parsed calls reach both servers, the
   answer scores 1.0; episodes cut off at `max_turns` leave no server process.
2. A real `swift rlhf` GRPO run with `--agent_template hermes`, the tiny model made to write a
   hermes call of `add` as its every token: the trainer's engine parses the calls, the
   stdio server of each episode answers them, every episode is cut off at `--max_turns`, and
   when the run ends no server process it started is left (each server wrote its pid).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonl_records
import pytest

pytest.importorskip("mcp")

from mcp_servers import HttpServer, stdio_settings, wait_gone
from scripted_tools import CharTokenizer, tool_call, tool_reply

ROW = {
    "name": "mcp_tools",
    "mcp_servers": ["calc", "web"],
    "prompt": "Add 20 and 22 on calc, then echo the sum on web.",
    "answer": "http: 42",
}


@pytest.fixture
def servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The operator's servers (a stdio command, an HTTP server on 127.0.0.1), and the folder
    where every server process writes its pid."""
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv("MCP_TEST_PIDS", str(pids))
    web = HttpServer(tmp_path)
    text = json.dumps({"calc": stdio_settings(), "web": web.settings()})
    monkeypatch.setenv("SWIFT_GYM_MCP_SERVERS", text)
    yield {"SWIFT_GYM_MCP_SERVERS": text}, pids
    web.stop()


def stdio_pids(folder: Path) -> list[int]:
    return [int(p.read_text()) for p in folder.iterdir() if p.name.startswith("stdio-")]


class ToolEngine:
    """An in-process fake of an engine with `--agent_template`: it calls `calc__add`, then
    `web__echo` with the sum, then answers with the echo; with `answers=False` it calls
    `calc__add` at every turn."""

    def __init__(self, answers: bool = True):
        self.answers = answers
        self.tokenizer = CharTokenizer()

    async def infer_async(self, request: Any, request_config: Any, **kwargs: Any) -> Any:
        said = [m["content"] for m in request.messages if m["role"] == "tool"]
        calls, text = [], "Calling."
        if not self.answers or not said:
            calls = [("calc__add", {"a": 20, "b": 22})]
        elif len(said) == 1:
            calls = [("web__echo", {"text": said[0]})]
        else:
            text = f"<answer>{said[-1]}</answer>"
        call_id = f"call_{len(request.messages)}"
        return tool_reply(text, [tool_call(name, args, call_id) for name, args in calls])


def scheduler_on(engine: ToolEngine, max_turns: int) -> Any:
    from swift.rollout.multi_turn import multi_turns

    return multi_turns["swift_gym"](
        infer_engine=engine, max_turns=max_turns, gym_env="mcp_tools", tokenizer=engine.tokenizer
    )


def test_both_servers_answer_the_models_calls(servers, run_rollout, rows) -> None:
    _, pids = servers
    outputs = run_rollout(
        "swift_gym", None, rows(ROW, ROW), 5, scheduler=scheduler_on(ToolEngine(), 5)
    )
    for output in outputs:
        infos = output.rollout_infos
        assert infos["env_error"] is None, infos["env_error"]
        assert infos["total_reward"] == 1.0 and infos["gym_done"] is True
        contents = [[r["content"] for r in turn] for turn in infos["tool_results"]]
        assert contents == [["42"], ["http: 42"], []]
    assert len(stdio_pids(pids)) == 2  # one stdio server per episode
    assert wait_gone(stdio_pids(pids), 0) == []


def test_episodes_cut_off_at_max_turns_leave_no_server(servers, run_rollout, rows) -> None:
    _, pids = servers
    outputs = run_rollout(
        "swift_gym", None, rows(ROW, ROW, ROW), 2, scheduler=scheduler_on(ToolEngine(False), 2)
    )
    for output in outputs:
        infos = output.rollout_infos
        assert infos["gym_done"] is False and infos["env_error"] is None  # cut off, not ended
        assert [[r["content"] for r in turn] for turn in infos["tool_results"]] == [["42"]] * 2
    assert len(stdio_pids(pids)) == 3
    assert wait_gone(stdio_pids(pids), 0) == []


HERMES_CALL = '<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>'
MAX_TURNS = 2


def test_grpo_cut_off_at_max_turns_leaves_no_server_process(
    servers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from grpo_run import swift_rlhf
    from tiny_model import build_calling_model

    import swift_gym

    _, pids = servers
    model = build_calling_model(tmp_path / "model", HERMES_CALL)
    # one server, one tool: the tiny model's 4,096 positions hold the tools block of no more
    calc = stdio_settings(env={"MCP_TEST_ONLY": "add"})
    environ = {"SWIFT_GYM_MCP_SERVERS": json.dumps({"calc": calc})}
    monkeypatch.setenv("SWIFT_GYM_MCP_SERVERS", environ["SWIFT_GYM_MCP_SERVERS"])
    row = {**ROW, "mcp_servers": ["calc"], "answer": "5"}
    env = swift_gym.make(row)
    import asyncio

    async def tools_of() -> list[dict[str, Any]]:
        try:
            await env.reset()
            return list(env.tools())
        finally:
            await env.close()

    tools = asyncio.run(tools_of())
    dataset = tmp_path / "rows.jsonl"
    with dataset.open("w") as out:
        for seed in range(4):
            line = {
                "messages": [{"role": "user", "content": "<placeholder>"}],
                "tools": json.dumps(tools),  # the prompt ms-swift encodes has them too
                "env_config": {**row, "seed": seed, "max_tool_calls": 32},
            }
            out.write(json.dumps(line) + "\n")
    before = len(stdio_pids(pids))
    trajectories = tmp_path / "trajectories"
    swift_rlhf(
        tmp_path, dataset, "mcp_tools", MAX_TURNS,
        {**environ, "MCP_TEST_PIDS": os.environ["MCP_TEST_PIDS"],
         "SWIFT_GYM_TRAJECTORIES": str(trajectories)},
        reward_funcs=("swift_gym_total",), model=model,
        args=["--agent_template", "hermes", "--max_completion_length", "2"],
    )  # fmt: skip
    started = stdio_pids(pids)
    assert wait_gone(started, 0) == []  # the run is over: none of its servers is left
    (path,) = trajectories.iterdir()
    records = jsonl_records.records(path)
    assert len(records) == 4  # 2 steps x 2 completions
    assert len(started) - before >= len(records)  # a server per episode (and per tools row)
    for record in records:
        assert record["status"] == "max_turns" and len(record["turns"]) == MAX_TURNS
        for turn in record["turns"]:
            assert [call["name"] for call in turn["tool_calls"]] == ["add"] * 2
            assert [result["content"] for result in turn["tool_results"]] == ["5", "5"]
