"""`swift-gym eval` on an env that offers tools (`tool_envs.CodeLock`), run as the installed
command: the oracle and random policies call the tool, and `-o` records the calls and results."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from cli_runner import python_json, run
from tool_envs import COLOURS, TOOLS, secret_of


def summary_of(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert result.stdout, result.stderr
    return json.loads(result.stdout)


def records_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_oracle_opens_every_lock_through_the_tool(
    lock_site: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "code_lock", "--policy", "oracle", "-n", "20", "-o", str(out), "--json",
        env=lock_site,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = summary_of(result)
    assert summary["success_rate"] == 1.0
    assert summary["statuses"] == {"opened": 20}
    assert summary["invalid_action_rate"] == 0.0
    records = records_of(out)
    for record in records:
        assert record["tools"] == list(TOOLS)
        (turn,) = record["turns"]
        colour = json.dumps({"colour": secret_of(record["seed"])})
        assert turn["reply"] == ""
        assert turn["tool_calls"] == [
            {"id": "call_oracle", "name": "enter_code", "arguments": colour}
        ]
        assert turn["tool_results"] == [
            {"tool_call_id": "call_oracle", "name": "enter_code", "content": "open"}
        ]
        assert turn["observation"] == "The lock opens."
        assert list(turn) == [
            "turn", "reply", "tool_calls", "action", "valid_action", "observation",
            "tool_results", "reward", "done", "info",
        ]  # fmt: skip


def test_random_makes_valid_and_garbage_calls_from_the_schema(
    lock_site: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    result = run(
        "eval", "code_lock", "--policy", "random", "-n", "40", "-o", str(out), "--json",
        env=lock_site,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = summary_of(result)
    assert summary["failed_episodes"] == 0
    assert 0.0 < summary["success_rate"] < 1.0
    assert 0.0 < summary["invalid_action_rate"] < 1.0
    calls = [
        (call, answer)
        for record in records_of(out)
        for turn in record["turns"]
        for call, answer in zip(turn["tool_calls"], turn["tool_results"], strict=True)
    ]
    valid = [c for c, a in calls if not a["content"].startswith("Error:")]
    refused = [(c, a) for c, a in calls if a["content"].startswith("Error:")]
    assert valid and refused
    assert {json.loads(c["arguments"])["colour"] for c in valid} == set(COLOURS)
    assert {c["name"] for c, _ in refused} >= {"enter_code", "no_such_tool"}
    assert all(c["id"] == a["tool_call_id"] and c["name"] == a["name"] for c, a in calls)
    again = run(
        "eval", "code_lock", "--policy", "random", "-n", "40", "-o", str(tmp_path / "again.jsonl"),
        env=lock_site,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == out.read_bytes()  # seeded, not global RNG


def test_eval_result_load_reads_the_calls_and_results_back(
    lock_site: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    result = run("eval", "code_lock", "--policy", "random", "-n", "5", "-o", str(out),
                 env=lock_site)  # fmt: skip
    assert result.returncode == 0, result.stderr
    code = (
        "import json; from swift_gym.evaluation import EvalResult; "
        f"r = EvalResult.load({str(out)!r}); "
        "print(json.dumps([[r['tools'], [[t['tool_calls'], t['tool_results']] for t in "
        "r['turns']]] for r in r.records]))"
    )
    loaded = python_json(code, tmp_path)
    assert loaded == [
        [r["tools"], [[t["tool_calls"], t["tool_results"]] for t in r["turns"]]]
        for r in records_of(out)
    ]
