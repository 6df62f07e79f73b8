"""A dataset row never chooses which secret the `openenv` env sends, nor where.

A real listener on 127.0.0.1 records every connection and every byte sent to it; rows point at
it as a foreign host (one the operator's `SWIFT_GYM_OPENENV_TOKENS` does not name) and the
installed command plays and validates them in new processes, with secrets in their environment.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import run

pytest.importorskip("websockets")

CANARY = "canary-s3cret-value"
SECRETS = {"HF_TOKEN": CANARY, "AWS_SECRET_ACCESS_KEY": CANARY, "GYM_TOKEN": CANARY}
OPERATOR = {"SWIFT_GYM_OPENENV_TOKENS": "gpu-box-2:8000=GYM_TOKEN", **SECRETS}
"""The operator maps one host, which is not the listener's, to GYM_TOKEN."""


class Listener:
    """Accepts TCP connections on 127.0.0.1 and keeps what each one sent, then closes it after
    answering `reply` (nothing by default)."""

    def __init__(self, reply: bytes = b"") -> None:
        self.reply = reply
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:  # closed
                return
            with connection:
                connection.settimeout(2)
                data = b""
                try:
                    while b"\r\n\r\n" not in data and len(data) < 65536:
                        chunk = connection.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                except OSError:
                    pass
                self.received.append(data)  # before the client can hear anything back
                with contextlib.suppress(OSError):
                    connection.sendall(self.reply)

    def close(self) -> None:
        self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close alone does not)
        self.sock.close()
        self._thread.join(5)


@pytest.fixture()
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps({"messages": [], "env_config": row}) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("secret", ["HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "GYM_TOKEN"])
def test_a_row_naming_a_secret_sends_nothing_and_validate_says_why(
    listener: Listener, tmp_path: Path, secret: str
) -> None:
    row = {"name": "openenv", "base_url": listener.url, "token_env": secret}
    rows = write_rows(tmp_path / "rows.jsonl", [row])
    played = run("eval", "--dataset", str(rows), "--policy", "random", "-o",
                 str(tmp_path / "out.jsonl"), env=OPERATOR)  # fmt: skip
    assert played.returncode == 1, played.stdout + played.stderr
    assert "nothing was played" in played.stderr
    checked = run("validate", str(rows), env=OPERATOR)
    assert checked.returncode == 1
    reason = "line 1 (openenv): env_config.token_env: a row cannot choose which secret is sent"
    assert reason in checked.stdout
    assert "SWIFT_GYM_OPENENV_TOKENS=host[:port]=VARIABLE" in checked.stdout
    assert CANARY not in checked.stdout + played.stdout + played.stderr
    as_set = run("eval", "openenv", "--set", f"base_url={listener.url}", "--set",
                 f"token_env={secret}", "-n", "1", "--policy", "random", env=OPERATOR)  # fmt: skip
    assert as_set.returncode != 0 and "token_env" in as_set.stderr
    assert listener.received == []  # not a single connection


def test_a_host_the_mapping_does_not_name_gets_no_token(listener: Listener, tmp_path: Path) -> None:
    rows = write_rows(tmp_path / "rows.jsonl", [{"name": "openenv", "base_url": listener.url}])
    played = run("eval", "--dataset", str(rows), "--policy", "random", env=OPERATOR)
    assert played.returncode == 1  # its one episode failed: the listener speaks no WebSocket
    assert "1 x reset() raised RemoteEnvError" in played.stdout, played.stdout + played.stderr
    assert len(listener.received) == 1  # it did connect: the handshake, with no token in it
    assert b"GET /ws HTTP/1.1" in listener.received[0]
    assert CANARY.encode() not in listener.received[0]
    assert b"authorization" not in listener.received[0].lower()


def test_dataset_remote_writes_no_secret_and_refuses_one(tmp_path: Path) -> None:
    out = tmp_path / "remote.jsonl"
    made = run("dataset", "frozen_lake", "-n", "2", "--remote", "http://gpu-box-2:8000",
               "-o", str(out))  # fmt: skip
    assert made.returncode == 0, made.stderr
    for line in out.read_text().splitlines():
        assert set(json.loads(line)["env_config"]) == {"name", "seed", "base_url", "env_config"}
    refused = run("dataset", "frozen_lake", "-n", "2", "--remote", "http://gpu-box-2:8000",
                  "--set", "token_env=GYM_TOKEN", "-o", str(tmp_path / "no.jsonl"))  # fmt: skip
    assert refused.returncode == 2
    assert "--set token_env=...: a row cannot choose which secret is sent" in refused.stderr
    assert "SWIFT_GYM_OPENENV_TOKENS" in refused.stderr
    assert not (tmp_path / "no.jsonl").exists()


def test_a_mapped_server_that_redirects_elsewhere_does_not_pass_the_token_on(
    listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mapped host answers 302 to the listener (another origin): the handshake that follows
    the redirect carries no token."""
    import asyncio

    import swift_gym

    location = f"ws://127.0.0.1:{listener.port}/ws"
    redirect = f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n"
    mapped = Listener(redirect.encode())
    try:
        monkeypatch.setenv("SWIFT_GYM_OPENENV_TOKENS", f"127.0.0.1:{mapped.port}=GYM_TOKEN")
        monkeypatch.setenv("GYM_TOKEN", CANARY)
        env = swift_gym.make({"name": "openenv", "base_url": mapped.url})
        with pytest.raises(Exception, match=r"127\.0\.0\.1"):
            asyncio.run(env.reset())
    finally:
        mapped.close()
    assert f"Bearer {CANARY}".encode() in mapped.received[0]  # the mapped host got it
    assert len(listener.received) == 1  # the redirect was followed...
    assert CANARY.encode() not in listener.received[0]  # ...without the token
    assert b"authorization" not in listener.received[0].lower()
