"""The two halves together: the core's `openenv` env (`swift_gym.remote`) plays FrozenLake
served by a real `swift-gym serve` process on 127.0.0.1, checked turn by turn against a local
FrozenLake on the same config, through `swift_gym.make` as a dataset row would."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import serve_process

import swift_gym

pytest.importorskip("websockets")


@pytest.fixture(scope="module")
def lake() -> Iterator[serve_process.Server]:
    server = serve_process.start("frozen_lake", "--token-env", "LAKE_TOKEN",
                                 env={"LAKE_TOKEN": "lake-s3cret"})  # fmt: skip
    yield server
    server.stop()


async def play(row: dict[str, Any], seed: int) -> float:
    remote = swift_gym.make(row)
    local = swift_gym.make({"name": "frozen_lake", "seed": seed})
    text, info, system = await remote.reset()
    local_text, _, local_system = await local.reset()
    assert (text, system) == (local_text, local_system)
    assert info["env"] == "frozen_lake" and info["status"] == "reset"
    total, done = 0.0, False
    messages: list[dict[str, Any]] = []
    while not done:
        reply = {"role": "assistant", "content": local.oracle_reply()}
        messages.append(reply)
        local_text, *_ = await local.step([reply])
        text, reward, done, info = await remote.step(messages)
        assert text == local_text
        total += reward
    await remote.close()
    return total


def test_the_openenv_env_plays_a_served_env_to_the_goal(
    lake: serve_process.Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAKE_TOKEN", "lake-s3cret")
    monkeypatch.setenv("SWIFT_GYM_OPENENV_TOKENS", f"127.0.0.1:{lake.port}=LAKE_TOKEN")
    rows = [{"name": "openenv", "base_url": lake.url, "seed": seed} for seed in range(8)]

    async def all_rows() -> list[float]:
        return await asyncio.gather(*(play(row, row["seed"]) for row in rows))

    assert asyncio.run(all_rows()) == [1.0] * 8


def test_a_bad_served_config_and_a_missing_token_are_clear(
    lake: serve_process.Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAKE_TOKEN", "lake-s3cret")
    monkeypatch.setenv("SWIFT_GYM_OPENENV_TOKENS", f"127.0.0.1:{lake.port}=LAKE_TOKEN")
    row = {"name": "openenv", "base_url": lake.url, "env_config": {"size": 1}}
    with pytest.raises(Exception, match=r"env_config\.size"):
        asyncio.run(swift_gym.make(row).reset())
    monkeypatch.setenv("LAKE_TOKEN", "wrong")
    with pytest.raises(Exception, match="401"):
        asyncio.run(swift_gym.make({**row, "env_config": None}).reset())


def test_dataset_remote_rows_play_through_eval(lake: serve_process.Server, tmp_path: Any) -> None:
    """The user's route: `swift-gym dataset NAME --remote URL`, then `swift-gym eval --dataset`."""
    from cli_runner import run

    rows = tmp_path / "remote.jsonl"
    made = run("dataset", "frozen_lake", "-n", "6", "--set", "size=5", "--remote", lake.url,
               "-o", str(rows))  # fmt: skip
    assert made.returncode == 0, made.stderr
    trajectories = tmp_path / "played.jsonl"
    token = {"LAKE_TOKEN": "lake-s3cret", "SWIFT_GYM_OPENENV_TOKENS": "127.0.0.1=LAKE_TOKEN"}
    result = run("eval", "--dataset", str(rows), "--policy", "random", "-o", str(trajectories),
                 env=token)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    import json

    records = [json.loads(line) for line in trajectories.read_text().splitlines()]
    assert [record["env"] for record in records] == ["openenv"] * 6
    assert [record["seed"] for record in records] == list(range(6))
    for record in records:
        assert record["status"] != "error", record["error"]
        assert "You are playing FrozenLake" in record["system_prompt"]  # from the server
        assert record["observation"].count("\n") >= 5  # the 5x5 map, as text, not JSON
        assert all("status" in turn["info"] for turn in record["turns"])


def test_eval_and_play_work_through_the_openenv_env(lake: serve_process.Server) -> None:
    """`swift-gym eval openenv --set base_url=...` and `swift-gym play openenv`, as typed."""
    from cli_runner import run

    token = {
        "LAKE_TOKEN": "lake-s3cret",
        "SWIFT_GYM_OPENENV_TOKENS": f"127.0.0.1:{lake.port}=LAKE_TOKEN",
    }
    sets = ["--set", f"base_url={lake.url}"]
    result = run("eval", "openenv", *sets, "-n", "4", "--policy", "random", "--json", env=token)
    assert result.returncode == 0, result.stdout + result.stderr
    import json

    summary = json.loads(result.stdout)
    assert summary["episodes"] == 4 and summary["failed_episodes"] == 0
    played = run("play", "openenv", *sets, "--seed", "2", stdin="<action>down</action>\n",
                 env=token)  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    assert "You are playing FrozenLake" in played.stdout
    assert "You are at row" in played.stdout


def test_eval_with_the_oracle_through_the_served_env_scores_1(
    lake: serve_process.Server, tmp_path: Any
) -> None:
    """The oracle runs on the server, where the env's hidden state is: `eval openenv --policy
    oracle` asks it for each reply, since the reset's metadata says the served env has one."""
    from cli_runner import run

    token = {
        "LAKE_TOKEN": "lake-s3cret",
        "SWIFT_GYM_OPENENV_TOKENS": f"127.0.0.1:{lake.port}=LAKE_TOKEN",
    }
    trajectories = tmp_path / "oracle.jsonl"
    result = run("eval", "openenv", "--set", f"base_url={lake.url}", "--policy", "oracle",
                 "-n", "6", "--json", "-o", str(trajectories), env=token)  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    import json

    summary = json.loads(result.stdout)
    assert summary["episodes"] == 6 and summary["success_rate"] == 1.0, summary
    records = [json.loads(line) for line in trajectories.read_text().splitlines()]
    assert all(record["status"] == "goal" for record in records)
    assert all("oracle" not in turn["info"] for r in records for turn in r["turns"])
