"""`swift-gym eval` on `tools=["python"]`, through the installed command: the oracle, and an
OpenAI-compatible test server on 127.0.0.1 whose scripted model writes code, reads what the
sandbox printed and answers with it.

Proof that the calls ran in the sandbox: bubblewrap is started through a script that counts each
sandbox it starts (`counted_bwrap`, by the sandbox's own `SWIFT_GYM_BWRAP`), and the scripted
model's code prints its PID, which is 1 only in the sandbox's own PID namespace.
"""

from __future__ import annotations

import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run

SET = ["--set", 'tools=["python"]']


def records_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_oracle_scores_one_with_every_call_run_in_the_sandbox(counted_bwrap, tmp_path):
    environ, log = counted_bwrap
    out = tmp_path / "oracle.jsonl"
    args = ["eval", "reasoning_gym.basic_arithmetic", *SET, "--policy", "oracle", "-n", "20"]
    result = run(*args, "-o", str(out), "--json", env=environ, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["success_rate"] == 1.0 and summary["episodes"] == 20
    assert summary["statuses"] == {"correct": 20}
    assert log.read_text().splitlines() == ["sandbox"] * 20  # one session per episode
    for record in records_of(out):
        assert [tool["function"]["name"] for tool in record["tools"]] == ["python"]
        called, answered = record["turns"]
        (call,) = called["tool_calls"]
        (printed,) = called["tool_results"]
        assert call["name"] == "python" and "print(answer)" in json.loads(call["arguments"])["code"]
        answer = re.fullmatch(r"stdout:\n(.*)", printed["content"], re.S).group(1)
        assert answered["reply"] == f"<answer>{answer}</answer>"  # what the sandbox printed
        assert answered["info"]["status"] == "correct" and record["total_reward"] == 1.0


CODE = """import os, re
from fractions import Fraction
expression = {expression!r}
value = eval(re.sub(r"(\\d+)", r"Fraction(\\1)", expression))
print("pid", os.getpid())
print(value)"""


def scripted_model(body: dict[str, Any]) -> dict[str, Any]:
    """A model that writes code to compute the question, then answers what the code printed."""
    messages = body["messages"]
    if messages[-1]["role"] == "tool":
        stdout = messages[-1]["content"].removeprefix("stdout:\n").splitlines()
        message = {"role": "assistant", "content": f"It printed it. <answer>{stdout[-1]}</answer>"}
        return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    question = next(m["content"] for m in messages if m["role"] == "user")
    expression = question.removeprefix("Calculate ").rstrip(".")
    arguments = json.dumps({"code": CODE.format(expression=expression)})
    call = {"id": "call_1", "type": "function",
            "function": {"name": "python", "arguments": arguments}}  # fmt: skip
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


@pytest.fixture
def server():
    """An OpenAI-compatible server on 127.0.0.1 answering with `scripted_model`."""
    requests: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def reply(self, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self.reply({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(body)
            self.reply(scripted_model(body))

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", requests
    httpd.shutdown()
    httpd.server_close()


def test_a_model_behind_the_openai_api_calls_python_then_answers(counted_bwrap, server, tmp_path):
    environ, log = counted_bwrap
    url, requests = server
    out = tmp_path / "openai.jsonl"
    proxies = [key for key in os.environ if "proxy" in key.lower()]
    args = ["eval", "reasoning_gym.basic_arithmetic", *SET, "--policy", "openai", "-n", "20"]
    result = run(
        *args, "--base-url", url, "--model", "scripted", "-o", str(out), "--json",
        env={**environ, "NO_PROXY": "127.0.0.1"}, drop=[*proxies, "OPENAI_API_KEY"], cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["success_rate"] == 1.0 and summary["failed_episodes"] == 0
    assert log.read_text().splitlines() == ["sandbox"] * 20
    assert len(requests) == 40
    assert all([t["function"]["name"] for t in body["tools"]] == ["python"] for body in requests)
    for record in records_of(out):
        called, answered = record["turns"]
        (printed,) = called["tool_results"]
        assert printed["content"].startswith("stdout:\npid 1\n")  # PID 1: the sandbox's own
        assert answered["info"]["status"] == "correct"
    second = next(body for body in requests if body["messages"][-1]["role"] == "tool")
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool"]
    assert second["messages"][-1]["tool_call_id"] == "call_1"
