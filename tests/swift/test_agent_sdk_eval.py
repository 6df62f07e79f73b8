"""The example `agent_openai_agents` (an OpenAI Agents SDK agent: `Runner.run` over
`OpenAIChatCompletionsModel`, one `@function_tool`), installed as a distribution, played by
`swift-gym eval --policy openai` against the scripted OpenAI-compatible server
(`openai_server.py --answer calculator`, a real process on 127.0.0.1), and by
`swift_gym.evaluate` with Python function policies, each in a new process: one that solves it,
and ones that write garbage (an unknown tool, arguments that are no JSON or of the wrong type,
no call at all, a call on every turn), each of whose episodes ends with reward 0, not an error.

No socket: under `swift_gym.evaluate` an audit hook records every connect and name lookup the
process makes, to its exit (the SDK's trace exporter flushes at exit), with an API key set, so
an SDK that traced or used its own client would reach api.openai.com; it records none. The same
hook, given the SDK's own exporter (a trace outside the episode), records the attempt.
And the Agents SDK program docs/agents.md shows plays as shown.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_runner import clean_environ, run
from test_agent_eval import calculator  # noqa: F401 (the fixture: the server on 127.0.0.1)

pytest.importorskip("agent_openai_agents", reason="pip install examples/agent_openai_agents")


def numbers(seed: int) -> tuple[int, int]:
    """The example's question of `seed` (agent_openai_agents.numbers with the default bounds)."""
    rng = random.Random(f"agent-openai-agents/{seed}")
    return rng.randint(10, 99), rng.randint(10, 99)


def test_swift_gym_eval_plays_the_agents_sdk_agent_with_the_openai_policy(
    calculator: tuple[str, Path],  # noqa: F811
    tmp_path: Path,
) -> None:
    url, log = calculator
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "agent_openai_agents", "--policy", "openai", "--base-url", url, "--model", "m",
        "-n", "6", "--concurrency", "3", "-o", str(out), "--json",
        env={"NO_PROXY": "127.0.0.1"}, drop=["OPENAI_API_KEY"],
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["success_rate"] == 1.0 and summary["failed_episodes"] == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6
    for record in records:
        a, b = numbers(record["seed"])
        assert record["observation"] == f"What is {a} + {b}?"
        assert record["system_prompt"].startswith("You are a careful calculator")
        (tool,) = record["tools"]  # the SDK's strict schema of the @function_tool
        assert tool["function"]["name"] == "add" and tool["function"]["strict"] is True
        assert tool["function"]["parameters"]["required"] == ["a", "b"]
        first, second = record["turns"]
        (call,) = first["tool_calls"]
        assert json.loads(call["arguments"]) == {"a": a, "b": b}
        assert first["tool_results"] == [
            {"tool_call_id": call["id"], "name": "add", "content": str(a + b)}
        ]
        assert first["info"] == {}  # the SDK's second call extends its first: no rewrite
        assert (second["reply"], second["reward"], second["done"]) == (str(a + b), 1.0, True)
        assert second["info"]["status"] == "solved"
        assert second["info"]["metrics"] == {"tool_calls": 1.0, "tool_errors": 0.0}
    events = [json.loads(line) for line in log.read_text().splitlines()]
    begun = [event for event in events if event["event"] == "begin"]
    assert len(begun) == 12  # one request per model call the Runner made, two each
    assert sorted(tuple(event["roles"]) for event in begun) == sorted(
        [("system", "user")] * 6 + [("system", "user", "assistant", "tool")] * 6
    )
    assert all(event["tools"] == ["add"] for event in begun)


GUARD = """
import atexit, json, sys

seen = []

def audit(event, args):
    if event in ("socket.connect", "socket.getaddrinfo"):
        seen.append(f"{event} {args[1] if event == 'socket.connect' else args[0]}")
        raise OSError("no network in this test")

sys.addaudithook(audit)
atexit.register(lambda: print(json.dumps(seen)))  # runs last: after the SDK's exit flush
"""

PLAY = (
    GUARD
    + """
import json, re, swift_gym

def call(name, arguments, number=1):
    return {"role": "assistant", "content": "",
            "tool_calls": [{"id": f"c{number}", "type": "function",
                            "function": {"name": name, "arguments": arguments}}]}

def policy(messages, env):
    seed, last = env.config.seed, messages[-1]
    if seed == 0:  # solves it: add, then the tool's result
        if last["role"] == "tool":
            return last["content"]
        a, b = map(int, re.findall(r"-?\\d+", last["content"]))
        return call("add", json.dumps({"a": a, "b": b}))
    if seed == 5:  # a call on every turn (each its own id: the SDK runs a call id once)
        return call("add", '{"a": 1, "b": 2}', len(messages))
    if last["role"] == "tool":
        return "I do not know"
    return [
        None,
        call("subtract", '{"a": 1, "b": 2}'),  # 1: a tool the agent does not have
        call("add", '{"a": 1, "b":'),  # 2: arguments that are no JSON
        call("add", '{"a": "one", "b": 2}'),  # 3: arguments of the wrong type
        "<tool_call>garbage 12 %% 3",  # 4: no call, garbage text
    ][seed]

result = swift_gym.evaluate("agent_openai_agents", policy, episodes=6, max_turns=6)
print(json.dumps([
    {"reward": r["total_reward"], "error": r["error"], "turns": len(r["turns"]),
     "info": r["turns"][-1]["info"], "results": [t["tool_results"] for t in r["turns"]]}
    for r in result.records
]))
"""
)


def play(code: str, tmp_path: Path) -> list[Any]:
    """The JSON lines `code` prints, run in a new process with an API key set (so traces, were
    they on, would be exported) and no proxy."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_environ(
            [k for k in os.environ if "proxy" in k.lower()] + ["OPENAI_AGENTS_DISABLE_TRACING"],
            OPENAI_API_KEY="sk-not-a-key",
        ),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_evaluate_plays_it_with_function_policies_garbage_included_and_no_socket(
    tmp_path: Path,
) -> None:
    episodes, sockets = play(PLAY, tmp_path)
    assert sockets == []  # no connect, no name lookup, to the process's exit
    solved, unknown, not_json, wrong_type, no_call, every_turn = episodes
    assert (solved["reward"], solved["turns"], solved["info"]["status"]) == (1.0, 2, "solved")
    assert all(e["error"] is None for e in episodes)  # each ended by the program, cleanly
    assert [e["reward"] for e in episodes[1:]] == [0.0] * 5
    assert unknown["turns"] == 1
    assert unknown["info"]["status"] == "model_error: ModelBehaviorError"
    for bad in (not_json, wrong_type):  # the SDK sends the tool's error back; then a wrong answer
        assert bad["turns"] == 2 and bad["info"]["status"] == "wrong"
        assert bad["info"]["metrics"] == {"tool_calls": 0.0, "tool_errors": 1.0}
        (result,) = bad["results"][0]
        assert result["content"].startswith("Error: add takes integers a and b")
    assert (no_call["turns"], no_call["info"]["status"]) == (1, "wrong")
    assert no_call["info"]["answer"] == "<tool_call>garbage 12 %% 3"
    assert every_turn["turns"] == 4  # the Runner's max_turns (4 by default), then it gives up
    assert every_turn["info"]["status"] == "out_of_turns"
    assert every_turn["info"]["metrics"]["tool_calls"] == 4.0
    assert [r["content"] for r in every_turn["results"][0]] == ["3"]


def test_the_audit_hook_sees_the_sdks_trace_exporter(tmp_path: Path) -> None:
    """The control: a trace the SDK does record (outside any episode) tries api.openai.com."""
    code = GUARD + "import agents\nwith agents.trace('control'):\n    pass\nagents.flush_traces()\n"
    (sockets,) = play(code, tmp_path)
    assert any("api.openai.com" in event for event in sockets), sockets


def test_the_agents_sdk_program_docs_agents_md_shows_works_as_shown() -> None:
    import asyncio
    import re

    from agent_episodes import add_two_and_two

    page = (Path(__file__).resolve().parents[2] / "docs" / "agents.md").read_text("utf-8")
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "Runner.run" in b]
    namespace: dict[str, Any] = {"__name__": "agents_sdk_doc"}
    exec(compile(code, "agents.md", "exec"), namespace)

    observation, system, tools, first, last = asyncio.run(add_two_and_two(namespace["SdkAgent"]()))
    assert (observation, system, tools) == ("What is 2 + 2?", "Use add.", ["add"])
    assert [result.content for result in first.tool_results] == ["4"]
    assert (last.reward, last.done) == (1.0, True)


def test_the_example_passes_the_conformance_kit() -> None:
    from agent_openai_agents import AgentsSdkCalculator

    from swift_gym.testing import check_env

    configs = [{}, {"seed": 3, "max_turns": 2}]
    check_env(
        AgentsSdkCalculator, configs=configs, sample_replies=["147", "garbage"]
    ).raise_for_violations()
