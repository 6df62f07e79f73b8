"""The `mcp_tools` env: rows of a prompt, an answer and server names, played with real servers.

A scripted policy calls tools on a stdio and an HTTP server and answers from what they said;
the final reply is scored against the row's answer; an episode cut off at `max_turns` closes
its sessions; the conformance kit holds it to the env contract with a live server.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")  # these tests start real MCP servers

from mcp_servers import SECRET, alive, pids_in, stdio_settings, wait_gone

import swift_gym
from swift_gym import StepResult
from swift_gym.mcp.env import final_answer, matches
from swift_gym.mcp.stdio import live_pids
from swift_gym.testing import check_env

Configure = Callable[[dict[str, object]], str]


def row(**fields: object) -> dict[str, Any]:
    return {"name": "mcp_tools", "mcp_servers": ["calc", "web"], **fields}


def calls_message(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls)
        ],
    }


def scripted(messages: list[dict[str, Any]], env: Any) -> Any:
    """Add on the stdio server, echo the sum on the HTTP one, then answer with the echo."""
    results = [m["content"] for m in messages if m["role"] == "tool"]
    if not results:
        return calls_message(("calc__add", {"a": 20, "b": 22}))
    if len(results) == 1:
        return calls_message(("web__echo", {"text": results[0]}))
    return f"The servers said: <answer>{results[-1]}</answer>"


def test_a_scripted_policy_plays_both_servers(
    configure: Configure, pids: Path, http_server: Any
) -> None:
    configure({"calc": stdio_settings(), "web": http_server.settings()})
    rows = [row(prompt="Add 20 and 22, then echo it.", answer="http: 42") for _ in range(3)]
    rows.append(row(prompt="Same, but expect 41.", answer="http: 41"))
    result = swift_gym.evaluate("mcp_tools", scripted, dataset=[{"env_config": r} for r in rows])
    assert [r["total_reward"] for r in result.records] == [1.0, 1.0, 1.0, 0.0]
    first = result.records[0]
    assert {"calc__add", "web__echo", "calc__echo"} <= {
        t["function"]["name"] for t in first["tools"]
    }
    contents = [t["tool_results"] for t in first["turns"]]
    assert contents[:2] == [
        [{"tool_call_id": "c0", "name": "calc__add", "content": "42"}],
        [{"tool_call_id": "c0", "name": "web__echo", "content": "http: 42"}],
    ]
    assert first["turns"][-1]["info"]["status"] == "correct"
    assert first["reset_info"]["servers"] == ["calc", "web"]
    assert SECRET not in json.dumps(result.records)
    assert wait_gone(pids_in(pids), 0) == [] and live_pids() == []
    assert len(pids_in(pids)) == 4  # a stdio server per episode


def test_an_episode_cut_off_at_max_turns_closes_its_servers(
    configure: Configure, pids: Path
) -> None:
    configure({"calc": stdio_settings()})

    def forever(messages: list[dict[str, Any]], env: Any) -> Any:
        return calls_message(("add", {"a": 1, "b": 1}))

    config = {"name": "mcp_tools", "mcp_servers": ["calc"], "prompt": "p", "answer": "a"}
    result = swift_gym.evaluate(config, forever, episodes=2, max_turns=2)
    assert [len(r["turns"]) for r in result.records] == [2, 2]
    assert all(not r["turns"][-1]["done"] for r in result.records)
    assert len(pids_in(pids)) == 2 and wait_gone(pids_in(pids), 0) == []


async def test_the_tool_call_budget(configure: Configure, pids: Path) -> None:
    configure({"calc": stdio_settings()})
    env = swift_gym.make(
        {"name": "mcp_tools", "mcp_servers": ["calc"], "prompt": "p", "answer": "2",
         "max_tool_calls": 2}
    )  # fmt: skip
    try:
        await env.reset()
        three = calls_message(*[("add", {"a": 1, "b": 1})] * 3)
        step = await env.step([three])
        assert isinstance(step, StepResult) and not step.done
        assert [r.content for r in step.tool_results][:2] == ["2", "2"]
        assert (
            step.tool_results[2].is_error
            and "no tool calls are left" in step.tool_results[2].content
        )
        last = await env.step([calls_message(("add", {"a": 1, "b": 1}))])
        assert last.done and last.reward == 0.0  # a reply with calls and none left is the answer
        assert "This reply was taken as your answer" in last.tool_results[0].content
    finally:
        await env.close()
    assert not any(alive(pid) for pid in pids_in(pids))


@pytest.mark.parametrize(
    ("reply", "answer", "how", "right"),
    [
        ("<answer> Paris </answer>", "paris", "exact", True),
        ("I think <answer>Lyon</answer>, no: <answer>Paris</answer>", "Paris", "exact", True),
        ("Paris", "Paris", "exact", True),
        ("It is Paris, France", "paris", "exact", False),
        ("It is Paris,  France", "paris, france", "contains", True),
        ("<answer>1,000.0</answer>", "1000", "number", True),
        ("<answer>1e3</answer>", "999", "number", False),
        ("<answer>nan</answer>", "nan", "number", False),
        ("<answer>many</answer>", "3", "number", False),
    ],
)
def test_scoring(reply: str, answer: str, how: str, right: bool) -> None:
    assert matches(final_answer(reply), answer, how) is right


def test_the_conformance_kit_with_a_live_server(configure: Configure, pids: Path) -> None:
    configure({"calc": stdio_settings(call_timeout_seconds=5)})
    config = {"mcp_servers": ["calc"], "prompt": "Add 2 and 3.", "answer": "5", "match": "number",
              "max_tool_calls": 3}  # fmt: skip
    report = check_env(
        "mcp_tools",
        configs=[config],
        seeds=[0],
        sample_replies=[calls_message(("add", {"a": 2, "b": 3})), "<answer>5</answer>"],
        skip=["tool_calls"],  # it would call `die` and `hang` (their own tests cover them)
    )
    report.raise_for_violations()
    assert wait_gone(pids_in(pids)) == []
