"""Each example verifiers environment played by `swift_gym.evaluate` with a Python function as
the policy, in process: the environment's own rollout (its tool server a real MCP server on
127.0.0.1, its multi-turn `Env.run`), scored by its own rewards; rows pick tasks and nothing
else; an episode cut off at max_turns leaves no tool server and no runtime folder behind."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from verifiers.v1.utils.paths import CACHE_DIR

import swift_gym
from swift_gym_verifiers.settings import VARIABLE

RUNTIMES = CACHE_DIR / "runtimes" / "subprocess"


def reverse(messages: list[dict[str, Any]], env: Any) -> str:
    return str(messages[-1]["content"]).rsplit(":", 1)[1].strip()[::-1]


def calculator(messages: list[dict[str, Any]], env: Any) -> Any:
    last = messages[-1]
    if last["role"] == "tool":
        return f"<answer>{last['content']}</answer>"
    a, b = re.findall(r"(\d+) \+ (\d+)", str(last["content"]))[0]
    arguments = json.dumps({"a": int(a), "b": int(b)})
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "calc_add", "arguments": arguments},
    }
    return {"role": "assistant", "content": "", "tool_calls": [call]}


def bisect(messages: list[dict[str, Any]], env: Any) -> str:
    low, high, guesses = 1, 8, []
    for message in messages:
        if message["role"] == "assistant":
            guesses.append(int(message["content"]))
        elif message["role"] == "user" and guesses:
            low = guesses[-1] + 1 if message["content"] == "higher" else low
            high = guesses[-1] - 1 if message["content"] == "lower" else high
    return str((low + high) // 2)


def tool_servers() -> list[int]:
    """Processes running the calculator's MCP server (`python -m sg_calculator.tools`)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"sg_calculator.tools" in command:
            pids.append(int(proc.name))
    return pids


def runtime_folders() -> set[str]:
    return {p.name for p in RUNTIMES.iterdir()} if RUNTIMES.is_dir() else set()


def test_a_single_turn_task_is_scored_by_its_own_reward_and_metric() -> None:
    result = swift_gym.evaluate("verifiers.sg_reverse", reverse, episodes=3)
    assert result.summary["success_rate"] == 1.0
    for record in result.records:
        assert record["system_prompt"] == "Reply with the reversed word only."
        (turn,) = record["turns"]
        assert turn["done"] and turn["reward"] == 1.0
        info = turn["info"]
        assert info["metrics"] == {"reward.exact": 1.0, "reply_chars": len(turn["reply"])}
        assert info["verifiers"]["stop_condition"] == "agent_completed"
    wrong = swift_gym.evaluate("verifiers.sg_reverse", lambda m, e: "nope", episodes=1)
    assert wrong.records[0]["total_reward"] == 0.0


def test_rows_pick_tasks_by_index_else_by_seed() -> None:
    configs = [{"name": "verifiers.sg_reverse", "index": 4}, {"name": "verifiers.sg_reverse"}]
    result = swift_gym.evaluate(configs, reverse, episodes=1, seed_start=9)
    by_index = [r["observation"] for r in result.records]
    assert by_index == ["Reverse the word: verifiers", "Reverse the word: hello"]  # 9 % 8 = 1


def test_a_row_may_not_choose_the_taskset_config() -> None:
    with pytest.raises(swift_gym.InvalidConfigError, match="unknown key"):
        swift_gym.make({"name": "verifiers.sg_reverse", "taskset": {"num_tasks": 1}})


def test_the_operator_sets_the_taskset_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, json.dumps({"sg_reverse": {"num_tasks": 2}}))
    config = {"name": "verifiers.sg_reverse", "index": 2}
    result = swift_gym.evaluate(config, reverse, episodes=1)
    (record,) = result.records
    assert record["status"] == "error" and "has 2 tasks: no index 2" in record["error"]
    monkeypatch.setenv(VARIABLE, "{not json")
    result = swift_gym.evaluate("verifiers.sg_reverse", reverse, episodes=1)
    assert "is not JSON" in result.records[0]["error"]


def test_a_required_taskset_config_the_operator_has_not_set_says_how_to_set_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # sg_words' config has a required field (its words): no default, and no row may give it
    monkeypatch.delenv(VARIABLE, raising=False)
    unset = swift_gym.evaluate("verifiers.sg_words", reverse, episodes=1)
    error = unset.records[0]["error"]
    assert "SettingsError: verifiers taskset 'sg_words' needs config only the operator" in error
    assert f"""e.g. {VARIABLE}='{{"sg_words": {{"words": "..."}}}}'""" in error
    monkeypatch.setenv(VARIABLE, json.dumps({"sg_words": {"words": "gym"}}))
    wrong = swift_gym.evaluate("verifiers.sg_words", reverse, episodes=1)
    assert (
        f"refused its config ({VARIABLE}['sg_words']): words: Input should be a valid list"
        in (wrong.records[0]["error"])
    )
    monkeypatch.setenv(VARIABLE, json.dumps({"sg_words": {"words": ["gym", "turn"]}}))
    fine = swift_gym.evaluate({"name": "verifiers.sg_words", "index": 1}, reverse, episodes=1)
    (record,) = fine.records
    assert (record["observation"], record["total_reward"]) == ("Reverse the word: turn", 1.0)


def test_a_failing_rubric_ends_only_its_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, json.dumps({"sg_reverse": {"task": {"broken_reward": True}}}))
    broken = swift_gym.evaluate("verifiers.sg_reverse", reverse, episodes=2)
    for record in broken.records:
        assert record["status"] == "error"
        assert "TaskError" in record["error"] and "the rubric broke" in record["error"]
    monkeypatch.delenv(VARIABLE)
    fine = swift_gym.evaluate("verifiers.sg_reverse", reverse, episodes=2)
    assert fine.summary["success_rate"] == 1.0


def test_a_tool_call_runs_on_the_tasks_own_mcp_server() -> None:
    result = swift_gym.evaluate("verifiers.sg_calculator", calculator, episodes=1)
    (record,) = result.records
    assert [t["function"]["name"] for t in record["tools"]] == ["calc_add"]
    first, second = record["turns"]
    assert [call["name"] for call in first["tool_calls"]] == ["calc_add"]
    assert [r["content"] for r in first["tool_results"]] == ["5"]  # computed by the server
    assert second["reply"] == "<answer>5</answer>" and second["reward"] == 1.0
    assert tool_servers() == []


def test_a_multi_turn_env_plays_the_user_and_records_its_reward() -> None:
    result = swift_gym.evaluate("verifiers.sg_guess", bisect, episodes=4)
    assert result.summary["success_rate"] == 1.0
    for record in result.records:
        feedback = [t["observation"] for t in record["turns"][:-1]]
        assert set(feedback) <= {"higher", "lower"}
        assert record["turns"][-1]["info"]["metrics"]["guesses"] == len(record["turns"])


def test_cut_off_episodes_leave_no_tool_server_and_no_runtime_folder() -> None:
    before = runtime_folders()
    guess = swift_gym.evaluate("verifiers.sg_guess", lambda m, e: "0", episodes=2, max_turns=3)
    assert [r["status"] for r in guess.records] == ["max_turns", "max_turns"]
    calc = swift_gym.evaluate("verifiers.sg_calculator", calculator, episodes=1, max_turns=1)
    assert calc.records[0]["status"] == "max_turns"
    assert tool_servers() == []
    assert runtime_folders() <= before
