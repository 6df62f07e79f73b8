"""`swift-gym eval --policy openai` plays code.humaneval and code.repair against a scripted
OpenAI-compatible server on 127.0.0.1, started here in a thread.

The server is keyed by an episode's first user message, which the test computes beforehand from
the env itself: for a HumanEval prompt it answers with the problem's canonical solution in a
```python block; for a repair statement it answers in OpenAI's tool-call format, turn by turn:
two `bash` calls (`ls`, and the test suite), then the task's fix as one `edit_file` call (the
env's oracle computes it), then `submit`. Both runs are the installed `swift-gym` in a new
process, through the openai SDK (the core's `agent` extra); both score 1.0, and the server saw
the tools offered and the tool results coming back.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run as run_command

import swift_gym

REPAIR_TOOLS = ["bash", "read_file", "edit_file", "write_file", "submit"]
TESTS_COMMAND = "python -m pytest -q -p no:cacheprovider 2>&1 | tail -3"
REPAIR_EPISODES = 2


class Scripted:
    """The server's script: first user message -> the assistant messages of turns 0, 1, ..."""

    def __init__(self) -> None:
        self.replies: dict[str, list[dict[str, Any]]] = {}
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        first = next(m["content"] for m in messages if m["role"] == "user")
        turn = sum(1 for m in messages if m["role"] == "assistant")
        script = self.replies[first]
        message = script[min(turn, len(script) - 1)]
        reason = "tool_calls" if message.get("tool_calls") else "stop"
        choice = {"index": 0, "message": message, "finish_reason": reason}
        return {"id": f"chat-{turn}", "object": "chat.completion", "model": "scripted",
                "choices": [choice]}  # fmt: skip


@pytest.fixture
def server() -> Iterator[tuple[str, Scripted]]:
    """(base URL, script) of a ThreadingHTTPServer on 127.0.0.1 speaking the chat API."""
    script = Scripted()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def reply(self, payload: Any, status: int = 200) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/v1/models":
                self.reply({"object": "list", "data": [{"id": "scripted", "object": "model"}]})
            else:
                self.reply({"error": "not found"}, 404)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/chat/completions":
                self.reply({"error": "not found"}, 404)
                return
            with script.lock:
                script.requests.append(body)
            try:
                self.reply(script.answer(body))
            except KeyError as error:  # an episode the script does not know: a loud 400
                self.reply({"error": {"message": f"unscripted episode: {error}"}}, 400)

    class Listener(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 64

    httpd = Listener(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", script
    finally:
        httpd.shutdown()
        httpd.server_close()


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    """The installed `swift-gym`, without proxies or an OpenAI key from the caller."""
    proxies = [k for k in os.environ if "proxy" in k.lower()]
    local = {"NO_PROXY": "127.0.0.1", **(env or {})}
    return run_command(*args, env=local, drop=[*proxies, "OPENAI_API_KEY"], timeout=600)


async def first_message(config: dict[str, Any]) -> tuple[str, Any]:
    """(the episode's first user message, the env after reset); the caller closes the env."""
    env = swift_gym.make(config)
    observation, _, _ = await env.reset()
    return observation, env


def bash(command: str, call_id: str) -> dict[str, Any]:
    arguments = json.dumps({"command": command})
    return {"id": call_id, "type": "function",
            "function": {"name": "bash", "arguments": arguments}}  # fmt: skip


def test_openai_policy_solves_humaneval_with_python_blocks(
    bwrap: str, server: tuple[str, Scripted], tmp_path: Path
) -> None:
    url, script = server

    async def scripted() -> None:
        for seed in range(3):  # eval -n 3 plays seeds 0, 1, 2
            observation, env = await first_message({"name": "code.humaneval", "seed": seed})
            script.replies[observation] = [{"role": "assistant", "content": env.oracle_reply()}]
            await env.close()

    asyncio.run(scripted())
    out = tmp_path / "humaneval.jsonl"
    done = run("eval", "code.humaneval", "--policy", "openai", "--base-url", url, "-n", "3",
               "-o", str(out), "--json")  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["success_rate"] == 1.0 and summary["episodes"] == 3
    assert len(script.requests) == 3  # one answer each
    assert not any("tools" in body for body in script.requests)  # a text env offers none
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(record["turns"][0]["reply"].startswith("```python") for record in records)


def repair_task_ids() -> list[str]:
    """A few shipped tasks, of six (one test file: a fast suite) when it has any."""
    from swift_gym_code.repair_env import tasks

    shipped = tasks()
    six = [task.id for task in shipped if task.project == "six"]
    return (six or [task.id for task in shipped])[:REPAIR_EPISODES]


def test_openai_policy_repairs_a_project_with_tool_calls(
    bwrap: str, server: tuple[str, Scripted], tmp_path: Path
) -> None:
    from swift_gym_code.repair.fetch import cache_dir
    from swift_gym_code.repair_env import task_index, tasks
    from swift_gym_code.repair_oracle import oracle_calls
    from swift_gym_code.repair_trees import pristine_tree

    cache = str(cache_dir())  # the operator's (the other repair tests' too): fetched once
    url, script = server
    ids = repair_task_ids()
    rows = tmp_path / "rows.jsonl"
    tops: dict[str, str] = {}  # first user message -> the top folder or file of the fix
    rows.write_text("".join(
        json.dumps({"env_config": {"name": "code.repair", "task_id": task_id}}) + "\n"
        for task_id in ids
    ))  # fmt: skip

    async def scripted() -> None:
        for task_id in ids:
            observation, env = await first_message({"name": "code.repair", "task_id": task_id})
            await env.close()
            task = tasks()[task_index()[task_id]]
            pristine = (pristine_tree(task) / task.changed_file).read_text(encoding="utf-8")
            calls = [bash("ls", "call_ls"), bash(TESTS_COMMAND, "call_tests")]
            look = {"role": "assistant", "content": "First, a look.", "tool_calls": calls}
            script.replies[observation] = [look, *oracle_calls(task, pristine)]
            tops[observation] = task.changed_file.split("/")[0]

    asyncio.run(scripted())
    out = tmp_path / "repair.jsonl"
    done = run(
        "eval", "code.repair", "--policy", "openai", "--base-url", url, "--dataset", str(rows),
        "-o", str(out), "--json", env={"SWIFT_GYM_CODE_CACHE": cache},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["success_rate"] == 1.0 and summary["episodes"] == len(ids)
    assert len(script.requests) == 3 * len(ids)  # look, edit, submit
    for body in script.requests:  # every request offered the env's tools, in OpenAI's form
        assert [tool["function"]["name"] for tool in body["tools"]] == REPAIR_TOOLS
        assert all(tool["type"] == "function" for tool in body["tools"])
    after_look = [body["messages"] for body in script.requests if len(body["messages"]) == 5]
    assert len(after_look) == len(ids)  # system, user, the look, its two tool results
    for messages in after_look:
        listing, tests = messages[3:]
        assert listing["role"] == tests["role"] == "tool"
        assert (listing["tool_call_id"], tests["tool_call_id"]) == ("call_ls", "call_tests")
        assert tops[messages[1]["content"]] in listing["content"]  # the project, in the workspace
        assert "failed" in tests["content"]  # the bug, proven by the project's own tests
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for record in records:
        last = record["turns"][-1]
        assert record["total_reward"] == 1.0 and last["info"]["ended_by"] == "submit"
        assert [c["name"] for c in record["turns"][1]["tool_calls"]] == ["edit_file"]
        assert last["info"]["diff"]  # the fix, as the final diff
