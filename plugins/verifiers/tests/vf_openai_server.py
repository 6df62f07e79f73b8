"""A scripted OpenAI-compatible server for the verifiers env tests, run as its own process:
`python vf_openai_server.py --log FILE` prints `listening PORT` (127.0.0.1, a free port).

It answers `POST /v1/chat/completions` as a model that solves the example environments:
`sg_reverse` (the word reversed), `sg_calculator` (a `calc_add` call with the question's
numbers, then the tool's result in <answer></answer>) and `sg_guess` (a binary search on the
"higher"/"lower" feedback). `GET /v1/models` lists one model. Each request's JSON body is
appended to `--log`, so a test reads exactly what the policy was asked. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The assistant message for a request."""
    messages = body["messages"]
    last = messages[-1]
    tools = [tool["function"]["name"] for tool in body.get("tools") or []]
    if last.get("role") == "tool":
        return {"role": "assistant", "content": f"<answer>{last['content']}</answer>"}
    text = str(last.get("content") or "")
    if "calc_add" in tools:
        a, b = re.findall(r"(\d+) \+ (\d+)", text)[0]
        arguments = json.dumps({"a": int(a), "b": int(b)})
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "calc_add", "arguments": arguments},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    if "Reverse the word:" in text:
        return {"role": "assistant", "content": text.rsplit(":", 1)[1].strip()[::-1]}
    low, high = map(int, re.findall(r"between (\d+) and (\d+)", messages_text(messages))[0])
    guesses: list[int] = []
    for message in messages:
        if message["role"] == "assistant":
            guesses.append(int(message["content"]))
        elif message["role"] == "user" and guesses:
            if message["content"] == "higher":
                low = guesses[-1] + 1
            elif message["content"] == "lower":
                high = guesses[-1] - 1
    return {"role": "assistant", "content": str((low + high) // 2)}


def messages_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


class Handler(BaseHTTPRequestHandler):
    log_path = ""
    lock = threading.Lock()

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
        with self.lock, open(self.log_path, "a") as log:
            log.write(json.dumps(body) + "\n")
        message = answer(body)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        self.reply(
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "scripted"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            }
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    Handler.log_path = args.log
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
