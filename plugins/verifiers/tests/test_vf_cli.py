"""`swift-gym eval verifiers.<id> --policy openai`: a real OpenAI-compatible server on 127.0.0.1
(vf_openai_server.py) is the model, in a new process, and each environment's own rollout asks
it exactly what the environment's seat sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run


def requests(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize(
    ("name", "calls"), [("verifiers.sg_calculator", 2), ("verifiers.sg_reverse", 1)]
)
def test_eval_with_an_openai_server(
    name: str, calls: int, scripted_model: tuple[str, Path], tmp_path: Path
) -> None:
    base_url, log = scripted_model
    out = tmp_path / "episodes.jsonl"
    home = tmp_path / "home"
    home.mkdir()
    result = run(
        "eval", name, "--policy", "openai", "--base-url", base_url, "-n", "2", "-o", str(out),
        "--json", env={"HOME": str(home), "NO_PROXY": "127.0.0.1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["success_rate"] == 1.0 and summary["episodes"] == 2
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [len(r["turns"]) for r in records] == [calls, calls]
    sent = requests(log)
    assert len(sent) == 2 * calls
    if name == "verifiers.sg_calculator":
        assert [t["function"]["name"] for t in sent[0]["tools"]] == ["calc_add"]
        tool_messages = [m for body in sent for m in body["messages"] if m["role"] == "tool"]
        assert {m["content"] for m in tool_messages} == {"5", "42"}
    assert not any((home / ".cache" / "verifiers" / "runtimes" / "subprocess").glob("*"))


def test_eval_of_a_multi_turn_env(scripted_model: tuple[str, Path], tmp_path: Path) -> None:
    base_url, log = scripted_model
    result = run(
        "eval", "verifiers.sg_guess", "--policy", "openai", "--base-url", base_url, "-n", "3",
        "--json", env={"HOME": str(tmp_path), "NO_PROXY": "127.0.0.1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["success_rate"] == 1.0
    assert any(m["content"] in {"higher", "lower"} for b in requests(log) for m in b["messages"])
