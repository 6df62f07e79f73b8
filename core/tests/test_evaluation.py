"""`swift_gym.evaluate`: evaluation as a library, in-process and in a new process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import swift_gym
from swift_gym import SwiftGymError


def test_done_when_the_oracle_solves_50_seeds_from_python() -> None:
    code = (
        "import swift_gym; r = swift_gym.evaluate('frozen_lake', 'oracle', episodes=50); "
        "print(r.success_rate)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1.0\n"
    assert done.stderr == ""  # no progress bar unless asked for


async def oracle_model(messages: list[dict[str, Any]], env: swift_gym.Env) -> str:
    """An async callable policy, as an in-process model would be."""
    assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
    return env.oracle_reply()


def test_an_async_callable_is_a_policy() -> None:
    result = swift_gym.evaluate("frozen_lake", oracle_model, episodes=20)
    assert result.success_rate == 1.0
    assert result.episodes == 20
    assert {record["policy"] for record in result.records} == {"oracle_model"}
    assert [record["index"] for record in result.records] == list(range(20))


def test_a_sync_callable_is_a_policy_too() -> None:
    seen: list[int] = []

    def plain_function(messages: list[dict[str, Any]], env: swift_gym.Env) -> str:
        seen.append(len(messages))
        return env.oracle_reply()

    result = swift_gym.evaluate("frozen_lake", plain_function, episodes=5)
    assert result.success_rate == 1.0
    assert result.statuses == {"goal": 5}
    assert min(seen) == 2  # the system prompt and the first observation
    assert sorted(set(seen))[:3] == [2, 4, 6]  # each turn adds a reply and an observation


def test_the_summary_holds_intervals_turns_and_statuses() -> None:
    result = swift_gym.evaluate("frozen_lake", "random", episodes=40, seed_start=7)
    low, high = result.success_rate_ci95
    assert 0.0 <= low <= result.success_rate <= high <= 1.0
    low, high = result.mean_reward_ci95
    assert low <= result.mean_reward <= high
    assert 1 <= result.mean_turns <= 10
    assert 0.0 < result.invalid_action_rate < 1.0
    assert sum(result.statuses.values()) == 40
    assert result.summary["episodes"] == 40
    assert [record["seed"] for record in result.records] == list(range(7, 47))


def test_per_env_summaries_for_a_list_of_configs() -> None:
    configs = [{"name": "frozen_lake"}, {"name": "frozen_lake_ms_swift", "size": 4}]
    result = swift_gym.evaluate(configs, "oracle", episodes=6)
    assert set(result.per_env) == {"frozen_lake", "frozen_lake_ms_swift"}
    assert result.per_env["frozen_lake"]["episodes"] == 6
    assert result.per_env["frozen_lake_ms_swift"]["episodes"] == 6
    assert result.per_env["frozen_lake_ms_swift"]["success_rate"] == 1.0
    assert result.episodes == 12
    by_env = {env: [r["seed"] for r in result.records if r["env"] == env] for env in result.per_env}
    assert by_env["frozen_lake"] == by_env["frozen_lake_ms_swift"] == list(range(6))  # paired


def test_a_config_dict_sets_fields_and_seeds_come_from_seed_start() -> None:
    result = swift_gym.evaluate({"name": "frozen_lake", "size": 6}, "oracle", episodes=3)
    assert [r["env_config"] for r in result.records] == [
        {"name": "frozen_lake", "size": 6, "seed": seed} for seed in range(3)
    ]
    with pytest.raises(SwiftGymError, match="seed_start"):
        swift_gym.evaluate({"name": "frozen_lake", "seed": 3}, "oracle", episodes=3)


def test_the_trajectory_file_round_trips(tmp_path: Path) -> None:
    from swift_gym.evaluation import EvalResult

    out = tmp_path / "t.jsonl"
    result = swift_gym.evaluate("frozen_lake", "random", episodes=12, concurrency=4, output=out)
    lines = out.read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines] == list(range(12))
    loaded = EvalResult.load(out)
    assert loaded.records == result.records
    assert loaded.summary == result.summary
    again = tmp_path / "again.jsonl"
    loaded.save(again)
    assert again.read_bytes() == out.read_bytes()


def test_a_dataset_file_or_rows(tmp_path: Path) -> None:
    rows = [{"env_config": {"name": "frozen_lake", "seed": s}} for s in (40, 41, 42)]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    from_file = swift_gym.evaluate(None, "oracle", dataset=data, episodes=2)
    assert [r["seed"] for r in from_file.records] == [40, 41]
    from_rows = swift_gym.evaluate(None, "oracle", dataset=rows)
    assert [r["seed"] for r in from_rows.records] == [40, 41, 42]
    assert from_rows.success_rate == 1.0


def test_bad_dataset_rows_raise_one_error_naming_each_line(tmp_path: Path) -> None:
    from swift_gym.evaluation import BadRowsError

    data = tmp_path / "bad.jsonl"
    data.write_text('{"env_config": {"name": "frozen_lake", "seed": 1}}\n{"env_config": {}}\n')
    with pytest.raises(BadRowsError) as caught:
        swift_gym.evaluate(None, "oracle", dataset=data)
    assert caught.value.count == 1
    assert caught.value.problems[0][0] == 2
    assert "line 2: env_config.name: no env name" in str(caught.value)
    assert isinstance(caught.value, SwiftGymError)


@pytest.mark.parametrize(
    ("env", "policy", "message"),
    [
        ("frozen_lake", "greedy", "unknown policy 'greedy'"),
        ("frozen_lake", "openai", "OpenAIPolicy"),
        ("frozen_lake", 42, "not a policy"),
        ("nope", "random", "unknown env 'nope'"),
        ({"name": "frozen_lake", "size": 1}, "random", "greater than or equal to 2"),
        (None, "random", "give an env"),
    ],
)
def test_bad_arguments_are_swift_gym_errors(env: Any, policy: Any, message: str) -> None:
    with pytest.raises(SwiftGymError, match=message):
        swift_gym.evaluate(env, policy, episodes=1)


def test_a_bad_base_url_is_a_swift_gym_error_not_a_click_one() -> None:
    code = (
        "import sys, swift_gym\n"
        "from swift_gym.evaluation import OpenAIPolicy\n"
        "try:\n"
        "    OpenAIPolicy(base_url='localhost:8000/v1', model='m')\n"
        "except swift_gym.SwiftGymError as error:\n"
        "    print([kind.__name__ for kind in type(error).__mro__], error)\n"
        "print('swift_gym.cli' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "did you mean http://localhost:8000/v1?" in done.stdout
    assert "ClickException" not in done.stdout and "ValueError" in done.stdout
    assert done.stdout.splitlines()[-1] == "False"  # the command is never imported


def test_output_in_a_missing_directory_is_refused_before_playing(tmp_path: Path) -> None:
    with pytest.raises(SwiftGymError, match="does not exist"):
        swift_gym.evaluate("frozen_lake", "oracle", episodes=1, output=tmp_path / "no" / "t.jsonl")


def test_a_stop_ends_the_run_and_keeps_a_prefix(tmp_path: Path) -> None:
    from swift_gym.evaluation import Stop

    stop = Stop()
    replies = 0

    def stops_after_five(messages: list[dict[str, Any]], env: swift_gym.Env) -> str:
        nonlocal replies
        replies += 1
        if replies == 5:
            stop.interrupt("enough")
        return env.oracle_reply()

    out = tmp_path / "t.jsonl"
    result = asyncio.run(
        swift_gym.evaluate_async(
            "frozen_lake", stops_after_five, episodes=100, concurrency=2, output=out, stop=stop
        )
    )
    assert result.stopped == "enough"
    assert 0 < result.episodes < 100
    assert result.not_played == 100 - result.episodes
    assert len(out.read_text().splitlines()) == result.episodes


def test_evaluate_works_where_an_event_loop_already_runs() -> None:
    async def notebook_cell() -> float:
        return swift_gym.evaluate("frozen_lake", "oracle", episodes=3).success_rate

    assert asyncio.run(notebook_cell()) == 1.0


SIGNALS_PROBE = """
import asyncio, signal, swift_gym
before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
during = []

def policy(messages, env):
    during.append((signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)))
    return env.oracle_reply()

loop = asyncio.new_event_loop()
loop.run_until_complete(swift_gym.evaluate_async("frozen_lake", policy, episodes=3))
print(set(during) == {before}, before == (signal.getsignal(signal.SIGINT),
      signal.getsignal(signal.SIGTERM)))
"""


def test_the_library_installs_no_signal_handler() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SIGNALS_PROBE], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True True\n"


SNAKE = ["SFFFFF", "HHHHHF", "FFFFFF", "FHHHHH", "FFFFFF", "HHHHHG"]
"""A FrozenLake map whose only path is 20 moves long: 10 turns cut every episode off."""


def test_without_max_turns_each_episode_gets_its_envs_horizon() -> None:
    snake = {"name": "frozen_lake", "map": SNAKE}
    natural = swift_gym.evaluate(snake, "oracle", episodes=5)
    assert natural.success_rate == 1.0
    assert natural.cut_off == 0
    assert natural.turn_limits == [20]
    assert {record["max_turns"] for record in natural.records} == {20}
    capped = swift_gym.evaluate({"name": "frozen_lake", "max_steps": 3}, "random", episodes=5)
    assert capped.turn_limits == [3]
    default = swift_gym.evaluate("frozen_lake", "random", episodes=5)
    assert default.turn_limits == [10]  # ms-swift's recipe on the default 4x4 maps
    given = swift_gym.evaluate(snake, "oracle", episodes=5, max_turns=10)
    assert given.success_rate == 0.0
    assert given.cut_off == 5 == given.statuses["max_turns"]
    assert given.turn_limits == [10]


@pytest.mark.parametrize("hint", [0, -1, 2.5, True, "7"])
def test_a_bad_horizon_fails_the_episode_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, hint: Any
) -> None:
    from swift_gym_frozen_lake import FrozenLakeEnv

    monkeypatch.setattr(FrozenLakeEnv, "max_turns_hint", lambda self: hint)  # in-process unit
    result = swift_gym.evaluate("frozen_lake", "oracle", episodes=2)
    assert result.statuses == {"error": 2}
    error = result.records[0]["error"]
    assert f"max_turns_hint() returned {hint!r}" in error and "a whole number" in error


@pytest.mark.parametrize("keep_records", [True, False])
def test_two_configs_of_one_env_are_two_rows_per_env(keep_records: bool) -> None:
    configs = [{"name": "frozen_lake"}, {"name": "frozen_lake", "size": 6}]
    result = swift_gym.evaluate(configs, "oracle", episodes=4, keep_records=keep_records)
    assert set(result.per_env) == {"frozen_lake", "frozen_lake size=6"}
    assert [summary["episodes"] for summary in result.per_env.values()] == [4, 4]


def test_group_labels_name_the_served_env_and_only_the_fields_that_differ() -> None:
    from swift_gym.evaluation.groups import MAX_CONFIGS, group_labels

    def remote(seed: int, **served: Any) -> dict[str, Any]:
        config = {"name": "openenv", "seed": seed, "base_url": f"http://127.0.0.1:{8000 + seed}",
                  "env_config": {"name": "frozen_lake", "seed": seed, **served}}  # fmt: skip
        return {"env": "openenv", "env_config": config}

    records = [
        remote(0), remote(1), remote(2, size=6),
        {"env": "taxi", "env_config": {"name": "taxi", "seed": 0, "rainy": True, "x": "a" * 99}},
        {"env": "taxi", "env_config": {"name": "taxi", "seed": 1, "rainy": True}},
        {"env": "openenv", "env_config": {"name": "openenv", "base_url": "http://127.0.0.1:1"}},
    ]  # fmt: skip
    assert (
        group_labels(records)
        == [
            "frozen_lake via openenv",
            "frozen_lake via openenv",  # another server of the pool plays the same env
            "frozen_lake via openenv size=6",
            f"taxi x={json.dumps('a' * 99)[:39]}…",
            "taxi",
            "openenv",
        ]
    )
    per_row = [{"env": "lake", "env_config": {"map": [str(n)]}} for n in range(MAX_CONFIGS + 1)]
    assert set(group_labels(per_row)) == {"lake"}  # a config per row: one row, not hundreds


def test_only_bounded_fields_of_a_servers_answer_reach_a_turns_record() -> None:
    from swift_gym.evaluation.openai import public_url, reply_details

    usage = {"prompt_tokens": -1, "completion_tokens": True, "total_tokens": 2**70}
    assert reply_details({"choices": [{"finish_reason": 7}], "usage": usage}) == {}
    long = {"choices": [{"finish_reason": "x" * 500}], "usage": {"total_tokens": 12}}
    assert reply_details(long) == {"finish_reason": "x" * 100, "usage": {"total_tokens": 12}}
    assert reply_details(["not", "a", "dict"]) == {}
    secret = "https://me:s3cret@api.example.com:8443/v1?key=s3cret#x"
    assert public_url(secret) == "https://api.example.com:8443/v1"
