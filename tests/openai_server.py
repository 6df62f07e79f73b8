"""A scripted OpenAI-compatible server for tests, run as its own process so a test can kill it
mid-run and start it again on the same port: `python openai_server.py --port P --log FILE ...`.

It answers `GET /v1/models` with one model and `POST /v1/chat/completions` according to
`--answer`: `solve` (the shortest-path move for the FrozenLake grid in the last message),
`calculator` (a tool-calling model for "What is A + B?": it calls the tool `add` with A and B,
then answers with the text of the tool message that comes back), `python` (a tool-calling model
for reasoning-gym's "Calculate EXPRESSION.": it calls the tool `python` with code that prints its
PID and the expression's exact value, then answers with the last line the code printed, in
<answer> tags), or `stall` (no answer, to
`/v1/models` either; the handler ends when the client hangs up, as vLLM aborts a request whose
client has gone). `--die-after K` exits the process, without answering,
on chat request K + 1.
Every request appends JSON lines to `--log`: `{"event": "begin"|"end", "pid", "active",
"max_tokens", "time", "roles", "tools"}`, where `active` counts the chat requests in progress
(a solved one ends before its reply is sent), `time` is the server's monotonic clock, `roles`
the request's message roles and `tools` the names of the tools it offered, so a test reads how
many requests the server saw, what they held, and how many it had in flight at once. Prints
`listening PORT` when ready. Stdlib and the FrozenLake package only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from swift_gym_frozen_lake import ACTIONS
from swift_gym_frozen_lake.maps import DELTAS, distances_to, find

STALL_LIMIT = 60.0
"""A stalled request ends after this many seconds even if its client never hangs up."""


def solve_reply(observation: str) -> str:
    """The shortest-path move for the grid in a FrozenLake observation, as an action tag."""
    grid = [line.split() for line in observation.splitlines()]
    rows = [
        "".join(cells)
        for cells in grid
        if cells and all(len(c) == 1 and c in "SFHGP" for c in cells)
    ]
    position = find(tuple(rows), "P")
    plain = tuple(row.replace("P", "F") for row in rows)
    size, distance = len(plain), distances_to(plain, find(plain, "G"))
    here = distance[position[0] * size + position[1]]
    for action in ACTIONS:
        r, c = position[0] + DELTAS[action][0], position[1] + DELTAS[action][1]
        if 0 <= r < size and 0 <= c < size and distance[r * size + c] == here - 1:
            return f"<action>{action}</action>"
    raise AssertionError(f"no move towards G in {rows}")


ADDITION = re.compile(r"What is (-?\d+) \+ (-?\d+)\?")


def calculate_reply(messages: list[dict[str, Any]], number: int) -> dict[str, Any]:
    """The calculator model: call `add` on the question, then answer with the tool's result."""
    last = messages[-1]
    if last.get("role") == "tool":
        return completion(str(last.get("content")))
    found = ADDITION.search(str(last.get("content")))
    if found is None:
        return completion("I only add numbers.")
    arguments = json.dumps({"a": int(found[1]), "b": int(found[2])})
    call = {"id": f"call_{number}", "type": "function",
            "function": {"name": "add", "arguments": arguments}}  # fmt: skip
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


PYTHON_CODE = """import os, re
from fractions import Fraction
expression = {expression!r}
print("pid", os.getpid())
print(eval(re.sub(r"(\\d+)", r"Fraction(\\1)", expression)))"""
"""The code the `python` model runs: exact arithmetic (Fraction), so `7 / 2` prints 7/2."""


def python_reply(messages: list[dict[str, Any]], number: int) -> dict[str, Any]:
    """The python model: run code for the question, then answer with what it printed."""
    last = messages[-1]
    if last.get("role") == "tool":
        printed = str(last.get("content")).removeprefix("stdout:\n").splitlines()
        return completion(f"It printed it. <answer>{printed[-1] if printed else ''}</answer>")
    question = next(str(m.get("content")) for m in messages if m.get("role") == "user")
    expression = question.removeprefix("Calculate ").rstrip(".")
    arguments = json.dumps({"code": PYTHON_CODE.format(expression=expression)})
    call = {"id": f"call_{number}", "type": "function",
            "function": {"name": "python", "arguments": arguments}}  # fmt: skip
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


def completion(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


class JSONHandler(BaseHTTPRequestHandler):
    """A quiet handler that answers with JSON: the base of every scripted server in the tests."""

    def log_message(self, *args: Any) -> None:
        pass

    def reply(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Listener(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True
    allow_reuse_address = True


def serve(args: argparse.Namespace) -> None:
    lock = threading.Lock()
    state = {"chat": 0, "active": 0}
    log = open(args.log, "a", encoding="utf-8")  # noqa: SIM115 (lives as long as the process)

    def note(event: str, body: dict[str, Any]) -> None:
        line = {"event": event, "pid": os.getpid(), "active": state["active"]}
        line["time"] = time.monotonic()
        line["max_tokens"] = body.get("max_tokens")
        line["roles"] = [m.get("role") for m in body.get("messages") or [] if isinstance(m, dict)]
        line["tools"] = [t.get("function", {}).get("name") for t in body.get("tools") or []]
        log.write(json.dumps(line) + "\n")
        log.flush()

    class Handler(JSONHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path == "/v1/models" and args.answer == "stall":
                self.wait_for_hang_up()
            elif self.path == "/v1/models":
                self.reply(200, {"object": "list", "data": [{"id": "scripted"}]})
            else:
                self.reply(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/chat/completions":
                self.reply(404, {"error": "not found"})
                return
            with lock:
                state["chat"] += 1
                if args.die_after is not None and state["chat"] > args.die_after:
                    log.close()
                    os._exit(0)  # dies mid-request, as a crashed server does
                state["active"] += 1
                note("begin", body)
            ended = False

            def end() -> None:
                nonlocal ended
                if not ended:
                    ended = True
                    with lock:
                        state["active"] -= 1
                        note("end", body)

            try:
                if args.answer == "stall":
                    self.wait_for_hang_up()
                elif args.answer == "calculator":
                    answer = calculate_reply(body["messages"], state["chat"])
                    end()
                    self.reply(200, answer)
                elif args.answer == "python":
                    answer = python_reply(body["messages"], state["chat"])
                    end()
                    self.reply(200, answer)
                else:
                    answer = completion(solve_reply(body["messages"][-1]["content"]))
                    end()  # before the reply goes out: the client's next request comes after
                    self.reply(200, answer)
            finally:
                end()

        def wait_for_hang_up(self) -> None:
            deadline = time.monotonic() + STALL_LIMIT
            while time.monotonic() < deadline:
                readable, _, _ = select.select([self.connection], [], [], 0.05)
                if readable and not self.connection.recv(1, 0x2):  # MSG_PEEK: b"" is EOF
                    return

    httpd = Listener(("127.0.0.1", args.port), Handler)
    print(f"listening {httpd.server_address[1]}", flush=True)
    httpd.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", required=True)
    parser.add_argument(
        "--answer", choices=["solve", "calculator", "python", "stall"], default="solve"
    )
    parser.add_argument("--die-after", type=int)
    serve(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
