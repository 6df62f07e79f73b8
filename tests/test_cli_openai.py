"""`swift-gym eval --policy openai` against real HTTP servers on 127.0.0.1 started here.

The servers speak the OpenAI chat API and answer with a scripted policy: a FrozenLake solver
that reads the map from the last observation, one that always errors, one that stalls, and one
that fails every other request. Failed and stalled requests must end only their episodes.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run as run_command
from openai_server import JSONHandler, completion, solve_reply
from test_install_hints import hidden
from tool_envs import COLOURS, TOOLS, secret_of


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The installed `swift-gym`, also without proxy settings or an OpenAI key from the caller."""
    proxies = [k for k in os.environ if "proxy" in k.lower()]
    local = {"NO_PROXY": "127.0.0.1", **(env or {})}
    return run_command(*args, env=local, drop=[*proxies, "OPENAI_API_KEY"])


Answer = Callable[[dict[str, Any], int], tuple[int, Any]]
"""(request body, request number) -> (HTTP status, JSON payload)."""


@dataclass
class Server:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[Message] = field(default_factory=list)
    """Each request's headers: names are case-insensitive, as in HTTP (the SDK sends them in
    lower case)."""


def solver(body: dict[str, Any], number: int) -> tuple[int, Any]:
    return 200, completion(solve_reply(body["messages"][-1]["content"]))


class Listener(ThreadingHTTPServer):
    request_queue_size = 128  # the default, 5, resets connections when 30 episodes start at once
    daemon_threads = True
    block_on_close = False


@pytest.fixture
def serve() -> Iterator[Callable[[Answer], Server]]:
    """Start an OpenAI-compatible server on 127.0.0.1 that answers with `answer`."""
    servers: list[Listener] = []
    release = threading.Event()

    def start(answer: Answer) -> Server:
        lock = threading.Lock()

        class Handler(JSONHandler):
            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    self.reply(
                        200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]}
                    )
                else:
                    self.reply(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    server.requests.append(body)
                    server.headers.append(self.headers)
                    number = len(server.requests)
                if self.path != "/v1/chat/completions":
                    self.reply(404, {"error": "not found"})
                    return
                status, payload = answer(body, number)
                if status == 0:  # stall until the test ends
                    release.wait(60)
                    return
                self.reply(status, payload)

        httpd = Listener(("127.0.0.1", 0), Handler)
        servers.append(httpd)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        server = Server(f"http://127.0.0.1:{httpd.server_address[1]}/v1")
        return server

    yield start
    release.set()
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def test_openai_policy_plays_through_the_chat_api(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    server = serve(solver)
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m1",
        "-n", "20", "--concurrency", "4", "--temperature", "0.5", "-o", str(out), "--json",
        env={"SWIFT_GYM_API_KEY": "sk-test"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["success_rate"] == 1.0
    assert summary["failed_episodes"] == 0
    first = server.requests[0]
    assert first["model"] == "m1"
    assert first["temperature"] == 0.5
    assert first["messages"][0]["role"] == "system"
    assert first["messages"][0]["content"].startswith("You are playing FrozenLake")
    assert first["messages"][1]["role"] == "user"
    assert all(h.get("Authorization") == "Bearer sk-test" for h in server.headers)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    turns = sum(r["num_turns"] for r in records)
    assert turns == len(server.requests)
    longest = max(server.requests, key=lambda body: len(body["messages"]))
    assert [m["role"] for m in longest["messages"][1:]] == ["user", "assistant"] * (
        len(longest["messages"]) // 2 - 1
    ) + ["user"]
    assert records[0]["turns"][0]["reply"].startswith("<action>")
    assert not any("tools" in body for body in server.requests)  # a text env offers none
    assert "tool_calls" not in records[0]["turns"][0] and "tools" not in records[0]


def test_the_model_is_found_at_models_when_not_given(serve: Callable[[Answer], Server]) -> None:
    server = serve(solver)
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "-n", "3", "--json"
    )
    assert result.returncode == 0, result.stderr
    assert {body["model"] for body in server.requests} == {"scripted"}
    assert "Authorization" not in server.headers[0]  # no key set, none sent


def test_a_server_that_errors_fails_every_episode_and_the_run_completes(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    server = serve(lambda body, number: (500, {"error": {"message": "model crashed"}}))
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "6", "--retries", "1", "-o", str(out), "--json",
    )  # fmt: skip
    assert result.returncode == 1
    summary = json.loads(result.stdout)
    assert summary["episodes"] == 6
    assert summary["statuses"] == {"error": 6}
    assert summary["success_rate"] == 0.0
    (error,) = summary["errors"]
    assert error.startswith("policy openai: HTTP 500:")
    assert "model crashed" in error
    assert error.endswith("gave up after 2 attempts")
    assert len(server.requests) == 12  # one try and one retry per episode
    assert len(out.read_text().splitlines()) == 6


def test_a_client_error_is_not_retried(serve: Callable[[Answer], Server]) -> None:
    server = serve(lambda body, number: (401, {"error": "bad key"}))
    result = run("eval", "frozen_lake", "--policy", "openai", "--base-url", server.url,
                 "--model", "m", "-n", "2", "--retries", "3")  # fmt: skip
    assert result.returncode == 1
    assert len(server.requests) == 2
    assert f"2 x policy openai: HTTP 401 at {server.url}/chat/completions (the key was refused" in (
        result.stdout
    )


def test_a_server_that_stalls_times_out_and_the_run_completes(
    serve: Callable[[Answer], Server],
) -> None:
    server = serve(lambda body, number: (0, None))
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "4", "--timeout", "0.5", "--retries", "0", "--json",
    )  # fmt: skip
    assert result.returncode == 1
    summary = json.loads(result.stdout)
    assert summary["statuses"] == {"error": 4}
    (error,) = summary["errors"]
    assert error == "policy openai: no answer within 0.5 s; gave up after 1 attempt"
    assert len(server.requests) == 4


def test_failed_requests_are_retried(serve: Callable[[Answer], Server]) -> None:
    seen: set[str] = set()

    def busy_once(body: dict[str, Any], number: int) -> tuple[int, Any]:
        key = json.dumps(body["messages"])
        if key not in seen:  # the first try of every turn
            seen.add(key)
            return 503, {"error": "busy"}
        return solver(body, number)

    server = serve(busy_once)
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "4", "--retries", "1", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout
    assert json.loads(result.stdout)["success_rate"] == 1.0
    assert len(server.requests) == 2 * len(seen)


def test_some_episodes_fail_and_the_others_are_kept(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    def picky(body: dict[str, Any], number: int) -> tuple[int, Any]:
        goal_on_top = "G" in body["messages"][-1]["content"].split("\n\n")[1].splitlines()[0]
        return (500, {"error": "no"}) if goal_on_top else solver(body, number)

    server = serve(picky)
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "30", "--retries", "0", "-o", str(out), "--json",
    )  # fmt: skip
    assert result.returncode == 1
    records = [json.loads(line) for line in out.read_text().splitlines()]
    failed = [r for r in records if r["status"] == "error"]
    won = [r for r in records if r["status"] == "goal"]
    assert failed and won and len(failed) + len(won) == 30
    assert all("G" in r["observation"].split("\n\n")[1].splitlines()[0] for r in failed)
    assert json.loads(result.stdout)["failed_episodes"] == len(failed)


def test_replies_are_capped_at_256_tokens_by_default(serve: Callable[[Answer], Server]) -> None:
    server = serve(solver)
    args = ("eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "-n", "2")
    result = run(*args)
    assert result.returncode == 0, result.stderr
    assert {body["max_tokens"] for body in server.requests} == {256}
    assert "2 episodes, at most 10 turns of at most 256 tokens" in result.stdout
    assert json.loads(run(*args, "--json").stdout)["max_tokens"] == 256
    run(*args, "--max-tokens", "32")
    assert server.requests[-1]["max_tokens"] == 32
    assert re.search(
        r"--max-tokens.*\[default: 256", " ".join(run("eval", "--help").stdout.split())
    )


def test_an_unset_api_key_variable_is_a_usage_error() -> None:
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--model", "m", "--api-key-env", "MY_KEY"
    )
    assert result.returncode == 2
    assert "--api-key-env MY_KEY: that variable is not set" in result.stderr


def test_records_say_which_model_and_settings_and_what_each_turn_cost(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    def accounted(body: dict[str, Any], number: int) -> tuple[int, Any]:
        payload = completion(solve_reply(body["messages"][-1]["content"]))
        payload["choices"][0]["finish_reason"] = "length" if number == 1 else "stop"
        payload["usage"] = {"prompt_tokens": 100 + number, "completion_tokens": 7,
                            "total_tokens": 107 + number, "injected": "x" * 10_000}  # fmt: skip
        return 200, payload

    server = serve(accounted)
    keyed = server.url.replace("http://", "http://user:s3cret@")
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", keyed,
        "--model", "m1", "-n", "3", "--concurrency", "1", "--temperature", "0.25",
        "--max-tokens", "64", "-o", str(out), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    settings = {"model": "m1", "base_url": server.url, "temperature": 0.25, "max_tokens": 64}
    summary = json.loads(result.stdout)
    assert (summary["env"], summary["policy"]) == ("frozen_lake", "openai")
    assert summary["policy_settings"] == settings
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(record["policy_settings"] == settings for record in records)
    assert "s3cret" not in out.read_text() and "s3cret" not in result.stdout
    turns = [turn for record in records for turn in record["turns"]]
    assert turns[0]["finish_reason"] == "length"
    assert {turn["finish_reason"] for turn in turns[1:]} == {"stop"}
    assert turns[0]["usage"] == {"prompt_tokens": 101, "completion_tokens": 7, "total_tokens": 108}
    assert all(set(turn["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
               for turn in turns)  # fmt: skip


def test_turns_hold_no_usage_when_the_server_gives_none(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    server = serve(solver)
    out = tmp_path / "t.jsonl"
    result = run("eval", "frozen_lake", "--policy", "openai", "--base-url", server.url,
                 "-n", "2", "-o", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0]["policy_settings"]["model"] == "scripted"  # the one the server lists
    assert records[0]["policy_settings"]["temperature"] is None  # the server's default
    for turn in (turn for record in records for turn in record["turns"]):
        assert "usage" not in turn and "finish_reason" not in turn


def colour_tryer(body: dict[str, Any], number: int) -> tuple[int, Any]:
    """A model that tries the lock's colours in order, two calls a reply, no content; it counts
    the colours tried from the tool messages the chat sends back."""
    tried = sum(1 for message in body["messages"] if message["role"] == "tool")
    colours = COLOURS[tried : tried + 2]
    calls = [
        {
            "id": f"call_{tried + i}",
            "type": "function",
            "function": {"name": "enter_code", "arguments": json.dumps({"colour": colour})},
        }
        for i, colour in enumerate(colours)
    ]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return 200, {"choices": [choice]}


def test_openai_sends_the_tools_and_the_tool_messages_and_reads_calls_back(
    serve: Callable[[Answer], Server], lock_site: dict[str, str], tmp_path: Path
) -> None:
    server = serve(colour_tryer)
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "code_lock", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "12", "--concurrency", "3", "-o", str(out), "--json", env=lock_site,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    earned = [COLOURS.index(secret_of(record["seed"])) // 2 + 1 for record in records]
    assert summary["success_rate"] == 1.0 and summary["failed_episodes"] == 0
    assert [record["num_turns"] for record in records] == earned
    assert len(server.requests) == sum(earned)
    assert all(body["tools"] == list(TOOLS) for body in server.requests)
    second = next(body for body in server.requests if len(body["messages"]) > 3)
    system, user, assistant, *tools = second["messages"]
    assert (system["role"], user["role"]) == ("system", "user")
    assert assistant == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": "enter_code", "arguments": json.dumps({"colour": colour})}}
            for i, colour in enumerate(COLOURS[:2])
        ],
    }  # fmt: skip
    assert tools == [
        {"role": "tool", "tool_call_id": "call_0", "content": "wrong colour"},
        {"role": "tool", "tool_call_id": "call_1", "content": "wrong colour"},
    ]
    turn = records[earned.index(2)]["turns"][1]
    assert turn["reply"] == "" and turn["finish_reason"] == "tool_calls"
    assert [call["id"] for call in turn["tool_calls"]] == ["call_2", "call_3"]
    assert {r["content"] for r in turn["tool_results"]} == {"open", "wrong colour"}


def test_calls_from_the_server_are_bounded(
    serve: Callable[[Answer], Server], lock_site: dict[str, str], tmp_path: Path
) -> None:
    def flood(body: dict[str, Any], number: int) -> tuple[int, Any]:
        calls = [{"id": "x" * 1000, "function": {"name": "n" * 5000, "arguments": {"a": 1}}}] * 100
        message = {"role": "assistant", "content": "hm", "tool_calls": calls}
        return 200, {"choices": [{"index": 0, "message": message}]}

    server = serve(flood)
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "code_lock", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "1", "--max-turns", "1", "-o", str(out), env=lock_site,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (turn,) = json.loads(out.read_text())["turns"]
    assert len(turn["tool_calls"]) == 64
    assert {len(call["name"]) for call in turn["tool_calls"]} == {65}
    assert turn["tool_calls"][0]["id"] == "call_0" and turn["tool_calls"][1]["id"] == "call_1"
    assert turn["tool_calls"][0]["arguments"] == '{"a": 1}'
    assert all(r["content"].startswith("Error: unknown tool") for r in turn["tool_results"])


def test_credentials_are_never_printed_and_no_key_but_the_one_given_is_sent(
    serve: Callable[[Answer], Server], tmp_path: Path
) -> None:
    server = serve(lambda body, number: (401, {"error": "bad key"}))
    keyed = server.url.replace("http://", "http://user:s3cret@")
    out = tmp_path / "t.jsonl"
    ambient = {  # the SDK's own variables: its debug log on, keys it would look for itself
        "OPENAI_LOG": "debug",
        "OPENAI_ADMIN_KEY": "sk-admin-s3cret",
        "OPENAI_CUSTOM_HEADERS": "Authorization: Bearer sk-ambient-s3cret",
    }
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", keyed, "--model", "m",
        "-n", "1", "-o", str(out), env={**ambient, "SWIFT_GYM_API_KEY": "sk-s3cret"},
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    said = result.stdout + result.stderr + out.read_text()
    assert f"HTTP 401 at {server.url}/chat/completions (the key was refused" in said
    assert "Sending HTTP Request" in result.stderr  # the SDK's debug log was on
    assert "s3cret" not in said
    basic = base64.b64encode(b"user:s3cret").decode()
    assert server.headers[0]["Authorization"] == f"Basic {basic}"  # the URL's, as httpx sends
    unkeyed = run(
        "eval", "frozen_lake", "--policy", "openai", "--base-url", server.url, "--model", "m",
        "-n", "1", env=ambient,
    )  # fmt: skip
    assert unkeyed.returncode == 1 and "s3cret" not in unkeyed.stdout + unkeyed.stderr
    assert "Authorization" not in server.headers[-1]


def test_without_the_openai_package_it_says_how_to_install_it(tmp_path: Path) -> None:
    result = run(
        "eval", "frozen_lake", "--policy", "openai", "--model", "m", env=hidden(tmp_path, "openai")
    )
    assert result.returncode == 2
    assert result.stderr == (
        "error: OpenAIPolicy (--policy openai) needs the openai package: pip install "
        '"./core[agent]" in a clone of swift-gym, or pip install "openai>=1.99" '
        '"httpx>=0.27,<1"\n'
    )
