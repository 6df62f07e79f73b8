"""`swift-gym replay`'s layout: one headline per episode, a repeated system prompt shown once,
plurals that agree with their numbers, info as bounded key=value text."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import time
from pathlib import Path

import pytest
from cli_runner import SCRIPT, clean_environ, run
from tool_records import tool_record, write_records


def record(index: int, prompt: str, turns: int = 1, **extra: object) -> dict[str, object]:
    return {
        "index": index,
        "env": "frozen_lake",
        "seed": index,
        "env_config": {"name": "frozen_lake", "seed": index},
        "policy": "random",
        "system_prompt": prompt,
        "observation": f"start of {index}",
        "turns": [
            {
                "turn": t,
                "reply": "<action>up</action>",
                "action": "up",
                "observation": f"after {t}",
                "reward": 0.0,
                "done": False,
                "info": {"status": "ok", "action": "up", "position": [0, t], "step": t},
            }
            for t in range(1, turns + 1)
        ],
        "num_turns": turns,
        "total_reward": 0.0,
        "status": "max_turns",
        "error": None,
        **extra,
    }


def write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture()
def four(tmp_path: Path) -> Path:
    return write(
        tmp_path / "t.jsonl",
        [
            record(0, "PROMPT ONE"),
            record(1, "PROMPT ONE", turns=2),
            record(2, "PROMPT TWO"),
            record(3, "PROMPT ONE"),
        ],
    )


def test_a_system_prompt_repeated_by_the_next_episode_is_shown_once(four: Path) -> None:
    result = run("replay", str(four))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("PROMPT ONE") == 2  # episode 0, and again after episode 2's other prompt
    assert out.count("PROMPT TWO") == 1
    assert out.count("same system prompt as episode 0") == 1  # episode 1


def test_each_episode_is_named_once_with_correct_plurals(four: Path) -> None:
    out = run("replay", str(four)).stdout
    naming = [line for line in out.splitlines() if re.search(r"\bepisode \d", line)]
    naming = [line for line in naming if "same system prompt" not in line]
    assert naming == [
        "episode 0: frozen_lake seed 0, policy random: max_turns after 1 turn, total reward 0",
        "episode 1: frozen_lake seed 1, policy random: max_turns after 2 turns, total reward 0",
        "episode 2: frozen_lake seed 2, policy random: max_turns after 1 turn, total reward 0",
        "episode 3: frozen_lake seed 3, policy random: max_turns after 1 turn, total reward 0",
    ]


def test_the_info_line_is_key_value_text(four: Path) -> None:
    out = run("replay", str(four), "--index", "1").stdout
    assert "reward 0 · done no · action up · status ok" in out
    assert "  position=[0,2]  step=2" in out
    assert '{"status"' not in out


def test_huge_info_values_stay_bounded(tmp_path: Path) -> None:
    info = {"status": "ok", "blob": "x" * 100_000, **{f"key{k}": k for k in range(1000)}}
    info["deep"] = json.loads("[" * 90 + "]" * 90)  # deeper than 100 is refused on reading
    rec = record(0, "P")
    rec["turns"][0]["info"] = info  # type: ignore[index]
    path = write(tmp_path / "t.jsonl", [rec])
    result = run("replay", str(path))
    assert result.returncode == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) < 1000
    assert re.search(r"blob=x+…", result.stdout)
    assert re.search(r"… \d+ more keys", result.stdout)


@pytest.mark.parametrize("command", ["replay", "export", "report"])
def test_a_dataset_given_for_trajectories_is_named_a_dataset_with_what_to_do(
    command: str, tmp_path: Path
) -> None:
    dataset = tmp_path / "rows.jsonl"
    made = run("dataset", "frozen_lake", "-n", "3", "-o", str(dataset))
    assert made.returncode == 0, made.stderr
    result = run(
        command, str(dataset), *(["-o", str(tmp_path / "out")] if command != "replay" else [])
    )
    assert result.returncode == 2, result.stderr
    error = next(line for line in result.stderr.splitlines() if line.startswith("error: "))
    assert (
        f"{dataset} is a dataset (rows of messages and env_config), not a trajectory file" in error
    )
    assert f"swift-gym eval --dataset {dataset} --policy POLICY" in error
    assert "skipped:" not in result.stderr  # one clear error, not a warning per row


def test_list_shows_each_episode_as_it_is_read(tmp_path: Path) -> None:
    """`--list` streams: the first episode's line comes while the writer still holds the FIFO
    open (no line came before the whole file was read, once)."""
    fifo = tmp_path / "episodes.fifo"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        [str(SCRIPT), "replay", "--list", str(fifo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_environ(NO_COLOR="1", COLUMNS="200"),
    )
    try:
        with fifo.open("w") as writer:  # opens once the command opens the FIFO to read
            writer.write(json.dumps(record(0, "PROMPT", status="first")) + "\n")
            writer.flush()
            seen = b""
            deadline = time.monotonic() + 60
            while b"first" not in seen and time.monotonic() < deadline:
                ready, _, _ = select.select([process.stdout], [], [], 1)
                if ready:
                    chunk = os.read(process.stdout.fileno(), 65536)  # type: ignore[union-attr]
                    if not chunk:
                        break
                    seen += chunk
            assert b"first" in seen, "no line while the writer held the FIFO open"
            writer.write(json.dumps(record(1, "PROMPT", status="second")) + "\n")
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert b"second" in seen + out


def test_a_tool_episode_shows_its_tools_calls_and_results(tmp_path: Path) -> None:
    path = write_records(tmp_path / "t.jsonl", [tool_record(0)])
    result = run("replay", str(path))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # the tools offered, once, after the system prompt
    assert re.search(r"tools \(2\)", out)
    assert re.search(r"move: Move one square\.\n\s+parameters: \{type:\"object\"", out)
    assert "look: See the board." in out
    # each call, under the reply that made it, with its arguments as the model wrote them
    assert re.search(
        r"I look, then go down\.\ncall look \(call_1\)\ncall move \(call_2\) "
        r'\{"direction": "down"\}\n',
        out,
    )
    assert re.search(r"\(empty\)\ncall move \(call_3\) \{\"direction\":\"right\"\}", out)
    # each result, titled with its tool and call, before the next observation
    assert re.search(r"tool move \(call_2\)[─ ]*\nmoved down\n", out)
    assert re.search(r"tool look \(call_1\)[─ ]*\nS\.\n\.G\n", out)
    assert "moved right: goal" in out and "You reached the goal." in out
    # an empty observation after results is no message the model saw: not shown
    assert out.count("\nuser ─") == 2


def test_huge_tool_calls_and_results_stay_bounded(tmp_path: Path) -> None:
    rec = tool_record(0)
    turn = rec["turns"][0]
    turn["tool_calls"][1]["arguments"] = '{"direction": "' + "d" * 100_000 + '"}'
    turn["tool_calls"][0]["name"] = "n" * 5000
    turn["tool_results"][1]["content"] = "r" * 100_000
    rec["tools"][0]["function"]["description"] = "x" * 100_000
    rec["turns"][1]["tool_calls"] = [
        {"id": str(k), "name": "move", "arguments": ""} for k in range(500)
    ]
    path = write_records(tmp_path / "t.jsonl", [rec])
    result = run("replay", str(path))
    assert result.returncode == 0, result.stderr
    assert len(result.stdout) < 60_000
    assert re.search(r'"direction": "d+…', result.stdout)
    assert re.search(r"r+… \(100,000 characters in all\)", result.stdout)
    assert re.search(r"… 4\d\d more calls", result.stdout)


def test_odd_tool_fields_in_a_record_are_shown_not_fatal(tmp_path: Path) -> None:
    rec = tool_record(0)
    rec["tools"] = "move"
    rec["turns"][0]["tool_calls"] = [7, {"name": None}]
    rec["turns"][0]["tool_results"] = {"content": "x"}
    result = run("replay", str(write_records(tmp_path / "t.jsonl", [rec])))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "call 7" in result.stdout


def test_a_tool_episode_never_shows_an_empty_observation(tmp_path: Path) -> None:
    # evaluation sends a tool env's observation only when it has text, with or without results
    rec = tool_record(0)
    rec["turns"][0].update(tool_calls=[], tool_results=[])
    text = record(1, "P")
    text["turns"][0]["observation"] = ""  # type: ignore[index]
    result = run("replay", str(write_records(tmp_path / "t.jsonl", [rec, text])))
    assert result.returncode == 0, result.stderr
    tools_part, text_part = result.stdout.split("episode 1:")
    assert tools_part.count("\nuser ─") == 2
    assert "(empty)" in text_part  # a text episode shows it, as before
