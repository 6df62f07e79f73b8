"""An AgentEnv (the example `agent_openai_loop`, a plain `openai` tool loop) registered through
a real entry point, played by `swift-gym eval --policy openai` against the scripted
OpenAI-compatible server (`openai_server.py --answer calculator`, a real process on 127.0.0.1),
and by `swift_gym.evaluate` with a Python function as the policy, each in a new process.

Two OpenAI clients meet here: the agent program's (answered in process by its episode) and the
`--policy openai` one (which reaches the server): the server sees exactly what the program sent.
"""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import clean_environ, run

REPO = Path(__file__).resolve().parents[1]
SERVER = Path(__file__).with_name("openai_server.py")
EXAMPLE = REPO / "examples" / "agent_openai_loop" / "src"


def numbers(seed: int) -> tuple[int, int]:
    """The example's question of `seed` (agent_openai_loop.numbers with the default bounds)."""
    rng = random.Random(f"agent-openai-loop/{seed}")
    return rng.randint(10, 99), rng.randint(10, 99)


@pytest.fixture
def agent_site(tmp_path: Path) -> dict[str, str]:
    """A distribution `agent-examples` whose entry point registers the example's program as
    `calculator_agent`, on PYTHONPATH with the example's source."""
    site = tmp_path / "site"
    info = site / "agent_examples-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: agent-examples\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[swift_gym.envs]\ncalculator_agent = agent_openai_loop:CalculatorAgent\n"
    )
    return {"PYTHONPATH": os.pathsep.join([str(site), str(EXAMPLE)]), "NO_PROXY": "127.0.0.1"}


@pytest.fixture
def calculator(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`openai_server.py --answer calculator` on 127.0.0.1: (its base URL, its request log)."""
    log = tmp_path / "server.jsonl"
    environ = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--log", str(log), "--answer", "calculator"],
        stdout=subprocess.PIPE,
        text=True,
        env=environ,
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 120)
    assert ready, "the test server did not start"
    line = process.stdout.readline()
    assert line.startswith("listening "), line
    yield f"http://127.0.0.1:{line.split()[1]}/v1", log
    process.kill()
    process.wait(60)
    process.stdout.close()


def test_swift_gym_eval_plays_the_agent_program_with_the_openai_policy(
    agent_site: dict[str, str], calculator: tuple[str, Path], tmp_path: Path
) -> None:
    url, log = calculator
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "calculator_agent", "--policy", "openai", "--base-url", url, "--model", "m",
        "-n", "6", "--concurrency", "3", "-o", str(out), "--json",
        env=agent_site, drop=["OPENAI_API_KEY"],
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["success_rate"] == 1.0 and summary["failed_episodes"] == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for record in records:
        a, b = numbers(record["seed"])
        assert record["observation"] == f"What is {a} + {b}?"
        assert record["system_prompt"].startswith("You are a careful calculator")
        assert [tool["function"]["name"] for tool in record["tools"]] == ["add"]
        first, second = record["turns"]
        (call,) = first["tool_calls"]
        assert json.loads(call["arguments"]) == {"a": a, "b": b}
        assert first["tool_results"] == [
            {"tool_call_id": call["id"], "name": "add", "content": str(a + b)}
        ]
        assert (second["reply"], second["reward"], second["done"]) == (str(a + b), 1.0, True)
        assert second["info"]["status"] == "solved"
        assert record["status"] == "solved" and record["total_reward"] == 1.0
    begun = [json.loads(line) for line in log.read_text().splitlines()]
    begun = [event for event in begun if event["event"] == "begin"]
    assert len(begun) == 12  # one request per create() the programs made, two each
    assert sorted(tuple(event["roles"]) for event in begun) == sorted(
        [("system", "user")] * 6 + [("system", "user", "assistant", "tool")] * 6
    )
    assert all(event["tools"] == ["add"] for event in begun)


POLICY = """
import json, re, swift_gym

def policy(messages, env):
    last = messages[-1]
    if last["role"] == "tool":
        return last["content"]
    a, b = map(int, re.findall(r"-?\\d+", last["content"]))
    call = {"id": "c1", "type": "function",
            "function": {"name": "add", "arguments": json.dumps({"a": a, "b": b})}}
    return {"role": "assistant", "content": "", "tool_calls": [call]}

result = swift_gym.evaluate("calculator_agent", policy, episodes=4, max_turns=3)
records = result.records
print(json.dumps({"success": result.success_rate, "turns": [r["num_turns"] for r in records],
                  "rewards": [r["total_reward"] for r in records],
                  "calls": [r["turns"][0]["tool_calls"][0]["arguments"] for r in records]}))
"""


def test_swift_gym_evaluate_plays_it_with_a_python_function_policy(
    agent_site: dict[str, str], tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", POLICY],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_environ(**agent_site),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout)
    assert seen["success"] == 1.0
    assert seen["turns"] == [2] * 4 and seen["rewards"] == [1.0] * 4
    assert [json.loads(call) for call in seen["calls"]] == [
        dict(zip("ab", numbers(seed), strict=True)) for seed in range(4)
    ]
