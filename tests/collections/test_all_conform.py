"""The conformance kit over every env registered when all four env packages are installed,
looked up by name through the registry (the way ms-swift finds them), a few configs each.

Every reasoning-gym task is also checked with the `python` tool (`tools: ["python"]`).
The `openenv` env is checked against a real `swift-gym serve` on 127.0.0.1 serving the other
packages' envs. Each package's own tests check its envs more thoroughly, installed alone.
"""

from __future__ import annotations

import pytest
import serve_process

import swift_gym
from swift_gym.sandbox.process import live
from swift_gym.testing import check_env

NAMES = sorted(spec.name for spec in swift_gym.list_envs())
SEEDS = {"textarena.Sudoku-v0-hard": (1, 2)}  # its generator takes 13 s for seed 0
COMPOSITE = {"datasets": [{"name": "chain_sum", "weight": 1.0, "config": {}}]}
PYTHON = [
    {"role": "assistant", "content": "", "tool_calls": [{"id": "call_7", "type": "function",
     "function": {"name": "python", "arguments": '{"code": "print(6 * 7)"}'}}]},
    "<answer>42</answer>",
]  # fmt: skip
REMOTE = (
    "frozen_lake",
    "gymnasium.Taxi-v4",
    "reasoning_gym.chain_sum",
    "textarena.TowerOfHanoi-v0",
)


@pytest.fixture(scope="module")
def server():
    served = serve_process.start(*[arg for name in REMOTE for arg in ("--allow", name)])
    yield served
    served.stop()


def configs(name: str) -> list[dict]:
    extra = COMPOSITE if name == "reasoning_gym.composite" else {}
    return [{"seed": seed, **extra} for seed in SEEDS.get(name, (0, 5))]


# mcp_tools needs the operator's MCP servers: core/tests/mcp runs the kit on it with a live one
@pytest.mark.parametrize("name", [name for name in NAMES if name not in ("openenv", "mcp_tools")])
def test_every_registered_env_conforms(name):
    report = check_env(name, configs(name), max_steps=6)
    assert report.ok, str(report)
    assert report.env == name and report.episodes > 0


@pytest.mark.parametrize("name", [name for name in NAMES if name.startswith("reasoning_gym.")])
def test_every_reasoning_gym_task_conforms_with_the_python_tool(bwrap, name):
    """`tools: ["python"]`: the oracle's and sampled calls mixed into the episodes (3 attempts,
    so they go on), every garbage call: about 20 episodes, 46 steps and 5 sandbox sessions a
    task (the package's own tests play more configs on a few tasks)."""
    extra = COMPOSITE if name == "reasoning_gym.composite" else {}
    tools = {"tools": ["python"], "max_tool_calls": 2, "attempts": 3, **extra}
    report = check_env(name, [{"seed": 0, **tools}], sample_replies=PYTHON, max_steps=6)
    assert report.ok, str(report)
    assert not live(), "a sandbox outlived its episode"


@pytest.mark.parametrize("served", REMOTE)
def test_the_openenv_env_conforms_playing_each_package_remotely(server, served):
    config = {"base_url": server.url, "env_config": {"name": served}}
    report = check_env("openenv", [config], seeds=(0, 1), max_steps=6)
    assert report.ok, str(report)
    assert report.episodes > 0
