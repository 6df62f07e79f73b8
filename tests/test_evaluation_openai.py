"""`swift_gym.evaluate` with an `OpenAIPolicy`, from Python, against real HTTP servers on
127.0.0.1: the scripted server of `openai_server.py`, in a process of its own, and a hostile one
here whose answers are too big or too slow to read whole."""

from __future__ import annotations

import gzip
import os
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from test_eval_servers import Server, free_port, servers, start_server  # noqa: F401 (fixture)

import swift_gym
from swift_gym.evaluation import EndpointError, EndpointSetupError, OpenAIPolicy
from swift_gym.evaluation.openai_http import _kept_headers


@pytest.fixture(autouse=True)
def direct_to_localhost(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy, key or base URL from the caller's environment."""
    for name in list(os.environ):
        if "proxy" in name.lower() or name in ("OPENAI_API_KEY", "SWIFT_GYM_API_KEY"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


def test_an_openai_policy_plays_through_a_real_server(
    servers: list[Server],  # noqa: F811
    tmp_path: Path,
) -> None:
    server = start_server(tmp_path / "log.jsonl")
    servers.append(server)
    policy = OpenAIPolicy(base_url=server.url)  # the model: the one the server lists
    result = swift_gym.evaluate("frozen_lake", policy, episodes=8, concurrency=3)
    assert result.success_rate == 1.0
    assert result.statuses == {"goal": 8}
    assert {record["policy"] for record in result.records} == {"openai"}
    requests = server.requests()
    assert len(requests) == sum(record["num_turns"] for record in result.records)
    assert {event["max_tokens"] for event in requests} == {256}  # the default cap
    assert max(event["active"] for event in requests) <= 3  # concurrency bounds requests
    again = swift_gym.evaluate("frozen_lake", policy, episodes=2, seed_start=8)  # reusable
    assert again.success_rate == 1.0


def test_max_tokens_and_sampling_reach_every_request(
    servers: list[Server],  # noqa: F811
    tmp_path: Path,
) -> None:
    server = start_server(tmp_path / "log.jsonl")
    servers.append(server)
    policy = OpenAIPolicy(base_url=server.url, model="scripted", max_tokens=32)
    assert swift_gym.evaluate("frozen_lake", policy, episodes=2).success_rate == 1.0
    assert {event["max_tokens"] for event in server.requests()} == {32}


def test_a_dead_endpoint_stops_the_run_without_raising(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    policy = OpenAIPolicy(base_url=url, model="m", retries=0)
    result = swift_gym.evaluate("frozen_lake", policy, episodes=40, concurrency=2)
    assert result.stopped is not None and "nothing answers at" in result.stopped
    assert result.not_played > 0
    assert result.statuses["not_played"] == result.not_played
    assert result.failed_episodes == result.episodes  # what it tried failed; nothing else ran


def test_an_endpoint_that_cannot_be_used_is_a_swift_gym_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(EndpointError, match="nothing answers at") as caught:
        swift_gym.evaluate("frozen_lake", OpenAIPolicy(base_url=url, retries=0), episodes=1)
    assert isinstance(caught.value, swift_gym.SwiftGymError)
    assert isinstance(caught.value, ConnectionError)
    with pytest.raises(EndpointSetupError, match="not an http"):
        OpenAIPolicy(base_url="127.0.0.1:8000/v1")


class Hostile(BaseHTTPRequestHandler):
    """An endpoint whose answers no client should take whole, or as they say: the first path
    segment picks how (`/length/v1`: a Content-Length of a terabyte; `/endless/v1`: a chunked
    body that never ends; `/gzip/v1`: 64 KiB of gzip that decode to 64 MiB; `/trickle/v1`: a
    byte every 0.1 s; `/busy/v1`: 503 "do not retry"; `/refuse/v1`: 400 "retry", an hour later).
    It counts the requests of each kind and notes each body it stopped sending because the
    client hung up."""

    protocol_version = "HTTP/1.1"
    requests: ClassVar[Counter[str]] = Counter()
    hung_up: ClassVar[list[str]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.answer()

    def answer(self) -> None:
        kind = self.path.split("/")[1]
        Hostile.requests[kind] += 1
        if kind in ("busy", "refuse"):  # the SDK would obey both headers: the client drops them
            self.send_response(503 if kind == "busy" else 400)
            self.send_header("x-should-retry", "false" if kind == "busy" else "true")
            self.send_header("Retry-After", "3600" if kind == "refuse" else "0")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        bomb = gzip.compress(b" " * 64 * 2**20) if kind == "gzip" else b""
        if kind == "gzip":
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(bomb)))
        elif kind == "endless":
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(10**12 if kind == "length" else 100))
        self.end_headers()
        chunk = b" " * 2**20
        try:
            self.wfile.write(bomb)
            while kind == "endless":
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            for _ in range(100 if kind == "trickle" else 0):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:  # the client hung up
            Hostile.hung_up.append(kind)
        self.close_connection = True


def test_answers_too_big_or_too_slow_are_not_read_whole() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = f"http://127.0.0.1:{server.server_port}"
    try:
        for kind in ("length", "endless", "gzip"):
            policy = OpenAIPolicy(base_url=f"{root}/{kind}/v1", model="m", retries=2)
            result = swift_gym.evaluate("frozen_lake", policy, episodes=1)
            assert [record["error"] for record in result.records] == [
                "policy openai: the answer is over 16,777,216 bytes (max_response_bytes): not read"
            ], kind
        assert Hostile.requests == {"length": 1, "endless": 1, "gzip": 1}  # none retried
        with pytest.raises(EndpointError, match=r"/endless/v1/models: the answer is over"):
            swift_gym.evaluate("frozen_lake", OpenAIPolicy(base_url=f"{root}/endless/v1"))
        # a byte every 0.1 s never trips a read timeout: the attempt's deadline ends it
        slow = OpenAIPolicy(base_url=f"{root}/trickle/v1", model="m", timeout=0.5, retries=0)
        (record,) = swift_gym.evaluate("frozen_lake", slow, episodes=1).records
        assert record["error"] == "policy openai: no answer within 0.5 s; gave up after 1 attempt"
        # the client hung up on the endless body and on the trickle (the server notices when it
        # writes next)
        deadline = time.monotonic() + 60
        while {"endless", "trickle"} - set(Hostile.hung_up) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert {"endless", "trickle"} <= set(Hostile.hung_up)
        # which statuses are retried is the SDK's rule, not the server's say
        for kind in ("busy", "refuse"):
            policy = OpenAIPolicy(base_url=f"{root}/{kind}/v1", model="m", retries=1)
            swift_gym.evaluate("frozen_lake", policy, episodes=1)
        assert (Hostile.requests["busy"], Hostile.requests["refuse"]) == (2, 1)
    finally:
        server.shutdown()
        server.server_close()


def test_a_servers_retry_after_waits_at_most_8_seconds() -> None:
    kept = _kept_headers(
        httpx.Headers({"Retry-After": "3600", "retry-after-ms": "5", "x-request-id": "a"})
    )
    assert dict(kept) == {"x-request-id": "a", "retry-after": "8"}
    assert "retry-after" not in _kept_headers(httpx.Headers({"Retry-After": "Fri, 1 Jan 2100"}))
