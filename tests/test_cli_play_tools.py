"""`swift-gym play` with an env that offers tools: the tools shown at the start, `/call NAME
ARGUMENTS` lines sent as the assistant message with `tool_calls`, each result shown, escaped.

The env is a test env package on PYTHONPATH (`walk`): a line of four squares, one `move` tool.
It prints each `messages` it is given to stderr as JSON, so the test reads what play sent.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from typing import Any

import pytest
from cli_runner import SCRIPT, run
from test_cli_play import Terminal

WALK_ENV = '''
import json, sys

import swift_gym

MOVE = {
    "type": "function",
    "function": {
        "name": "move",
        "description": "Move one square \\x1b[2J left or right.",
        "parameters": {
            "type": "object",
            "properties": {"direction": {"type": "string", "enum": ["left", "right"]}},
            "required": ["direction"],
            "additionalProperties": False,
        },
    },
}


class WalkEnv(swift_gym.Env):
    """Squares 0 to 3, start at 0, goal at 3: each right move goes one square."""

    TOOLS = swift_gym.ToolSet([MOVE])

    async def reset(self, request=None):
        self.at = 0
        return "You are on square 0 of 0..3.", {}, "Walk to square 3 with the move tool."

    def tools(self):
        return self.TOOLS

    async def step(self, messages):
        print(json.dumps(messages), file=sys.stderr, flush=True)
        results = []
        if any(call.name == "forget" for call in swift_gym.tool_calls(messages)):
            return swift_gym.StepResult("", 0.0, False, {}, [])  # a bug: no result for a call
        for call in swift_gym.tool_calls(messages):
            checked = self.TOOLS.check(call)
            if isinstance(checked, swift_gym.ToolResult):
                results.append(checked)
                continue
            self.at = max(0, self.at + (1 if checked["direction"] == "right" else -1))
            results.append(swift_gym.ToolResult.for_call(call, f"now on square {self.at} \\x1b[5m"))
        done = self.at == 3
        observation = "" if results else "Use the move tool."
        info = {"status": "goal" if done else "ok"}
        return swift_gym.StepResult(observation, float(done), done, info, results)
'''


@pytest.fixture(scope="module")
def walk_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A real distribution on PYTHONPATH (its dist-info is what importlib.metadata reads)."""
    site = tmp_path_factory.mktemp("site")
    (site / "walk_env_module.py").write_text(WALK_ENV)
    info = site / "swift_gym_test_walk-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: swift-gym-test-walk\nVersion: 0.1.0\n"
        "Summary: An env that offers a tool.\n"
    )
    (info / "entry_points.txt").write_text("[swift_gym.envs]\nwalk = walk_env_module:WalkEnv\n")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    environ.update({"NO_COLOR": "1", "COLUMNS": "200", "PYTHONPATH": str(site)})
    return environ


def play(environ: dict[str, str], lines: str) -> tuple[subprocess.CompletedProcess, list[Any]]:
    """`swift-gym play walk` with `lines` piped; the process and each `messages` step got."""
    result = subprocess.run(
        [str(SCRIPT), "play", "walk"], input=lines, capture_output=True, text=True,
        env=environ, timeout=300,
    )  # fmt: skip
    steps = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("[")]
    return result, steps


def test_the_tools_are_shown_and_a_call_is_sent_as_tool_calls(walk_env: dict[str, str]) -> None:
    result, steps = play(walk_env, '/call move {"direction": "right"}\n')
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "tools (1)" in out
    assert r"move: Move one square \x1b[2J left or right." in out
    assert 'parameters: {type:"object",properties:{direction:' in out
    assert 'call move (call_1) {"direction": "right"}' in out  # the piped call, echoed
    assert "tool move (call_1)" in out and r"now on square 1 \x1b[5m" in out
    (messages,) = steps
    assert messages[-1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "move", "arguments": '{"direction": "right"}'},
            }
        ],
    }


def test_results_go_back_as_tool_messages_and_text_stays_text(walk_env: dict[str, str]) -> None:
    lines = (
        '/call move {"direction": "right"}\n'
        "I walk.\n"
        "/call move\n"  # no arguments: the env's check answers, the model would read it
        "//call is text\n"
        '/call move {"direction":"right"}\n'
        '/call move {"direction":"right"}\n'
    )
    result, steps = play(walk_env, lines)
    assert result.returncode == 0, result.stderr
    assert len(steps) == 6
    second = steps[1]
    # the result as an OpenAI tool message, and no empty user message after it
    assert second[-2:] == [
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "name": "move",
            "content": "now on square 1 \x1b[5m",
        },
        {"role": "assistant", "content": "I walk."},
    ]
    third = steps[2]
    assert third[-2] == {"role": "user", "content": "Use the move tool."}
    assert third[-1]["tool_calls"][0]["function"] == {"name": "move", "arguments": ""}
    assert third[-1]["tool_calls"][0]["id"] == "call_2"
    assert steps[3][-1] == {"role": "assistant", "content": "/call is text"}
    assert "the arguments of 'move'" in result.stdout  # the env's error result, shown
    assert result.stdout.rstrip().endswith("episode over: status goal; 6 turns, total reward 1")


def test_a_call_line_without_a_name_is_refused_with_the_syntax(walk_env: dict[str, str]) -> None:
    result, steps = play(walk_env, "/call\n/call {}\n")
    assert result.returncode == 0, result.stderr
    assert steps == []  # nothing was sent
    assert result.stdout.count("error: /call needs a tool name: /call NAME {JSON arguments}") == 2


def test_a_call_typed_in_a_terminal(
    walk_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", walk_env["PYTHONPATH"])
    term = Terminal("play", "walk")
    try:
        term.expect(r"tools \(1\)")
        term.expect(r"reply> ")
        term.send('/call move {"direction": "right"}\r')
        term.expect(r"tool move \(call_1\)")
        term.expect(r"now on square 1")
        term.expect(r"reply> ")  # Ctrl-D once the next line is being read
        term.send("\x04")
        term.expect(r"stopped before the episode ended \(end of input\): 1 turn")
        assert term.wait() == 0
    finally:
        term.close()


def test_text_envs_send_call_lines_as_text() -> None:
    result = run("play", "frozen_lake", "--seed", "0", stdin="/call move {}\n")
    assert result.returncode == 0, result.stderr
    assert "tools (" not in result.stdout
    assert re.search(r"^assistant ─+\n/call move \{\}\n", result.stdout, re.M)  # text
    assert "status invalid_action" in result.stdout and "call move (" not in result.stdout


def test_an_env_that_leaves_a_call_unanswered_ends_the_session(walk_env: dict[str, str]) -> None:
    result, steps = play(walk_env, "/call forget {}\n/call move {}\n")
    assert result.returncode == 1, result.stderr
    assert len(steps) == 1  # the session ended there
    assert "error: the env failed: InvalidStepError: step() gave no result for call 'call_1'" in (
        result.stdout
    )
    assert "stopped by an env error: 0 turns" in result.stdout
    assert "Traceback" not in result.stderr


def test_the_call_syntax_is_shown_and_help_spends_no_turn(walk_env: dict[str, str]) -> None:
    lines = '/help\n/call move {"direction": "right"}\n//help\n'
    result, steps = play(walk_env, lines)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    hint = '/call NAME {JSON arguments} (e.g. /call move {"name": "value"}'
    assert out.count(hint) == 2  # once after the tools, once for /help
    assert len(steps) == 2  # /help was never sent; //help was, as the text /help
    assert steps[-1][-1] == {"role": "assistant", "content": "/help"}
    assert "2 turns" in out


def test_help_in_a_text_env_spends_no_turn() -> None:
    result = run("play", "frozen_lake", "--seed", "0", stdin="/help\n<action>down</action>\n")
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "each line you type is one reply, sent as the model's" in out
    assert "1 turn, total reward" in out
