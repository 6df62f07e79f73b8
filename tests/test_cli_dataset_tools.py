"""`swift-gym dataset` gives rows of tool envs the env's `tools` column: ms-swift encodes the
prompt it trains on from the row's tools, so a row without them trains on a prompt without the
tools block its episode was played with (the scheduler warns). Text envs' rows stay as they were.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from cli_runner import run

import swift_gym

BROKEN_TOOLS = '''
from swift_gym import Env


class ToolsAfterReset(Env):
    """Offers a tool named after its seed; reset fails on seed 2; seed 3 offers a bad schema."""

    async def reset(self, request=None):
        if self.config.seed == 2:
            raise RuntimeError("no episode for seed 2")
        self.seed_now = self.config.seed
        return "obs", {}, "system"

    def tools(self):
        name = "bad name!" if self.seed_now == 3 else f"tool_{self.seed_now}"
        schema = {"type": "object", "properties": {}}
        return [{"type": "function", "function": {"name": name, "parameters": schema}}]

    async def step(self, messages):
        return "", 0.0, True, {}
'''


def env_tools(config: dict) -> list[dict]:
    env = swift_gym.make(config)
    asyncio.run(env.reset())
    return json.loads(json.dumps(list(env.tools())))


def test_rows_of_a_tool_env_carry_its_tools_as_ms_swift_reads_them(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    made = run(
        "dataset", "frozen_lake", "-n", "3", "--set", "action_format=tool", "-o", str(out)
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    for seed, row in enumerate(rows):
        assert list(row) == ["messages", "tools", "env_config"]
        assert isinstance(row["tools"], str)  # the JSON text of an ms-swift agent row
        config = {"name": "frozen_lake", "seed": seed, "action_format": "tool"}
        assert json.loads(row["tools"]) == env_tools(config)
    assert [t["function"]["name"] for t in json.loads(rows[0]["tools"])] == ["move"]
    checked = run("validate", str(out))
    assert checked.returncode == 0, checked.stdout


def test_rows_of_a_text_env_get_no_tools_column() -> None:
    made = run("dataset", "frozen_lake", "-n", "2")
    assert made.returncode == 0, made.stderr
    assert all("tools" not in json.loads(line) for line in made.stdout.splitlines())


def test_tools_are_each_rows_own_and_an_env_that_fails_them_writes_nothing(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    info = site / "after_reset-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: after-reset\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[swift_gym.envs]\nafter_reset = after_reset_env:ToolsAfterReset\n"
    )
    (site / "after_reset_env.py").write_text(BROKEN_TOOLS)
    env = {"PYTHONPATH": str(site)}
    good = run("dataset", "after_reset", "-n", "2", env=env)
    assert good.returncode == 0, good.stderr
    names = [
        json.loads(json.loads(line)["tools"])[0]["function"]["name"]
        for line in good.stdout.splitlines()
    ]
    assert names == ["tool_0", "tool_1"]  # each row's env reset for its own seed

    out = tmp_path / "never.jsonl"
    bad = run("dataset", "after_reset", "-n", "4", "-o", str(out), env=env)
    assert bad.returncode == 1
    assert (
        "row 2 (after_reset, seed 2): reading its tools after reset: RuntimeError: no episode "
        "for seed 2" in bad.stderr
    )
    assert "row 3 (after_reset, seed 3): reading its tools after reset: InvalidToolsError" in (
        bad.stderr
    )
    assert "bad name!" in bad.stderr
    assert not out.exists()
