"""`swift-gym eval --policy oracle` succeeds on every env whose oracle is exact, all four env
packages installed: one dataset made by `swift-gym dataset --mix` over every package's envs,
played in one run (a process per env would cost a second or two each).

Which envs have an oracle is read from the registry (a class that defines `oracle_reply`), so
a new one is included unless it is listed below with the reason its oracle is not exact.
"""

from __future__ import annotations

import json

from cli_runner import run

import swift_gym
from swift_gym.env import Env
from swift_gym.registry import default_registry

NOT_EXACT = {
    "gymnasium.Blackjack-v1": "basic strategy loses some hands: the cards decide",
    "gymnasium.CliffWalkingSlippery-v1": "slippery ice: the best route still falls sometimes",
}
NEEDS_ROWS = {
    "mcp_tools": "rows give its prompt and answer, the operator its MCP servers (core/tests/mcp "
    "plays its oracle against real ones)",
}
CONFIGS = {
    # slippery by default in Gymnasium; the oracle is exact on the ice that does not slip
    "gymnasium.FrozenLake-v1": ["--set", "is_slippery=false"],
    "gymnasium.FrozenLake8x8-v1": ["--set", "is_slippery=false"],
    "reasoning_gym.composite": [
        "--set",
        'datasets=[{"name": "chain_sum", "weight": 1, "config": {}},'
        ' {"name": "word_sorting", "weight": 1, "config": {}}]',
    ],
}
ROWS_EACH = 2


def with_exact_oracle() -> list[str]:
    registry = default_registry()
    names = []
    for spec in swift_gym.list_envs():
        cls = registry.get_env_class(spec.name)
        if getattr(cls, "oracle_reply", Env.oracle_reply) is not Env.oracle_reply:
            names.append(spec.name)
    return sorted(name for name in names if name not in NOT_EXACT and name not in NEEDS_ROWS)


def test_the_oracle_succeeds_on_every_env_whose_oracle_is_exact(tmp_path):
    names = with_exact_oracle()
    families = {name.split(".")[0] for name in names}
    assert families == {"frozen_lake", "frozen_lake_ms_swift", "gymnasium", "reasoning_gym",
                        "textarena"}  # fmt: skip
    assert set(NOT_EXACT) <= {spec.name for spec in swift_gym.list_envs()}
    plain = [name for name in names if name not in CONFIGS]
    parts = []
    mix = ",".join(f"{name}:1" for name in plain)
    made = run("dataset", "--mix", mix, "-n", str(ROWS_EACH * len(plain)), "-o", "mix.jsonl",
               cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    parts.append(tmp_path / "mix.jsonl")
    for index, (name, sets) in enumerate(CONFIGS.items()):
        out = f"set{index}.jsonl"
        made = run("dataset", name, *sets, "-n", str(ROWS_EACH), "-o", out, cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        parts.append(tmp_path / out)
    rows = [line for part in parts for line in part.read_text().splitlines()]
    assert len(rows) == ROWS_EACH * len(names)
    dataset = tmp_path / "oracle-rows.jsonl"
    dataset.write_text("\n".join(rows) + "\n")

    args = ["eval", "--dataset", str(dataset), "--policy", "oracle", "--max-turns", "200"]
    result = run(*args, "--json", "-o", str(tmp_path / "oracle.jsonl"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads(result.stdout)
    per_env = summary["per_env"]
    assert set(per_env) == set(names)
    failed = {name: entry for name, entry in per_env.items() if entry["success_rate"] != 1.0}
    assert not failed, failed
    assert all(entry["episodes"] == ROWS_EACH for entry in per_env.values())
    assert summary["success_rate"] == 1.0 and summary["episodes"] == len(rows)


def test_the_oracle_succeeds_through_the_python_tool_on_every_reasoning_gym_task(bwrap, tmp_path):
    """`tools=["python"]`: on every task with an exact oracle, one row each, the oracle runs
    code that prints the stored answer in the sandbox, then answers with what it printed."""
    names = [name for name in with_exact_oracle() if name.startswith("reasoning_gym.")]
    assert len(names) == 106 - 5  # the five verifier-scored tasks store no answer
    tools = ["--set", 'tools=["python"]']
    plain = [name for name in names if name not in CONFIGS]
    made = run("dataset", "--mix", ",".join(f"{name}:1" for name in plain), "-n",
               str(len(plain)), *tools, "-o", "mix.jsonl", cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    composite = ["reasoning_gym.composite", *CONFIGS["reasoning_gym.composite"]]
    made = run("dataset", *composite, "-n", "1", *tools, "-o", "composite.jsonl", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    rows = (tmp_path / "mix.jsonl").read_text() + (tmp_path / "composite.jsonl").read_text()
    (tmp_path / "rows.jsonl").write_text(rows)
    out = tmp_path / "oracle.jsonl"
    args = ["eval", "--dataset", "rows.jsonl", "--policy", "oracle", "--json", "-o", str(out)]
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert set(summary["per_env"]) == set(names)
    failed = {n: e for n, e in summary["per_env"].items() if e["success_rate"] != 1.0}
    assert not failed, failed
    for line in out.read_text().splitlines():
        record = json.loads(line)
        called, answered = record["turns"]
        (printed,) = called["tool_results"]
        assert printed["name"] == "python" and printed["content"].startswith("stdout:\n")
        stdout = printed["content"].removeprefix("stdout:\n")
        assert answered["reply"] == f"<answer>{stdout}</answer>"  # what the sandbox printed
