"""A model that writes tool calls, trained and served by ms-swift with `--agent_template hermes`.

A random tiny model never writes `<tool_call>`, so the module first teaches it, honestly: the
oracle's FrozenLake episodes with `action_format: tool` on the classic map (`swift-gym eval
--policy oracle -o`), exported as agent SFT rows (`swift-gym export`), and `swift sft
--agent_template hermes` on them. Its tokenizer (tiny_model's options) has each hermes call of
`move` as one token, as it has each position line, so 80 steps on 2 cores learn the path. Then:

- a real `swift rlhf` GRPO run from that checkpoint, through the `swift_gym` scheduler: the
  command of docs/training.md ("A tool env"), as the page's list of changes says, on the test's
  rows of the classic map. ms-swift's engine parses the model's text into `tool_calls`, the env
  answers each as a tool, and the trajectory files (SWIFT_GYM_TRAJECTORIES) hold the parsed calls
  and the results;
- a real `swift deploy --agent_template hermes` of it answers `swift-gym eval --policy openai`
  with `tool_calls`, and the score is what the model earns.

Every check replays the recorded calls in a fresh env: a call lost or changed on the way shows.

Seen here: `swift deploy` returns a call's hermes text in `message.content` as well as in
`tool_calls`, and `--policy openai` sends both back, so the hermes template renders each earlier
call twice; greedy decoding then leaves the oracle's path at its third move (down, down, down
into the hole), where GRPO's rollouts, rendered once, follow it. The score is still what the
served model earns; the eval test asserts that, not the path.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonl_records
import pytest
from cli_runner import run
from grpo_run import page_rlhf
from swift_deploy import BIN, deployed, environ
from tiny_model import build_tiny_model

import swift_gym
from swift_gym.tools.turns import assistant_message

# pytest-timeout: swift sft, swift rlhf and swift deploy in its fixtures: 1.6 minutes here
pytestmark = pytest.mark.timeout(900)

CLASSIC = "SFFF/FHFH/FFFH/HFFG"
TOOL_LAKE = {"name": "frozen_lake", "action_format": "tool", "map": CLASSIC}
ORACLE_PATH = ["down", "down", "right", "down", "right", "right"]
DIRECTIONS = ("up", "down", "left", "right")
SFT_STEPS = 80
MAX_TURNS = 8
CALL_BLOCK = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.DOTALL)


def hermes_call(direction: str) -> str:
    """`move(direction)` as the hermes agent template writes it for the model to learn."""
    call = json.dumps({"name": "move", "arguments": {"direction": direction}})
    return f"<tool_call>\n{call}\n</tool_call>"


ONE_TOKEN = [
    *(hermes_call(direction) for direction in DIRECTIONS),
    *(f"You are at row {r}, col {c}." for r in range(4) for c in range(4)),
    "<tool_response>\n",
    "\n</tool_response>",
]
"""Each a single token of the tokenizer: a reply is one token plus <|im_end|>, and the position
sits a few tokens before the reply (as a BPE of pieces, 80 steps learned a position-blind
policy: 4 of the 6 moves)."""


def lake_tools() -> list[dict[str, Any]]:
    env = swift_gym.make(TOOL_LAKE)
    asyncio.run(env.reset())
    return json.loads(json.dumps(list(env.tools())))


@pytest.fixture(scope="module")
def oracle_sft(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkpoint of `swift sft --agent_template hermes` on the oracle's exported tool
    episodes of the classic map."""
    root = tmp_path_factory.mktemp("tool-sft")
    oracle, rows = root / "oracle.jsonl", root / "sft.jsonl"
    sets = ["--set", "action_format=tool", "--set", f"map={CLASSIC}"]
    played = run("eval", "frozen_lake", *sets, "--policy", "oracle", "-n", "2", "-o", str(oracle))
    assert played.returncode == 0, played.stderr
    exported = run("export", str(oracle), "-o", str(rows))
    assert exported.returncode == 0, exported.stderr
    texts = []
    for line in rows.read_text().splitlines():
        row = json.loads(line)
        texts += [row["tools"], *(message["content"] for message in row["messages"])]
    model = build_tiny_model(
        root / "model", corpus=texts * 20, added_tokens=ONE_TOKEN, vocab_size=800
    )
    command = [
        str(BIN / "swift"), "sft", "--model", str(model), "--model_type", "qwen2",
        "--template", "qwen2_5", "--agent_template", "hermes", "--check_model", "false",
        "--dataset", str(rows), "--split_dataset_ratio", "0", "--tuner_type", "full",
        "--torch_dtype", "float32", "--max_steps", str(SFT_STEPS),
        "--per_device_train_batch_size", "2", "--learning_rate", "3e-3",
        "--lr_scheduler_type", "cosine", "--warmup_ratio", "0.05", "--seed", "0",
        "--logging_steps", "10", "--save_strategy", "steps", "--save_steps", str(SFT_STEPS),
        "--save_only_model", "true", "--report_to", "none",
        "--dataloader_num_workers", "0", "--dataset_num_proc", "1",
        "--output_dir", str(root / "output"),
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWIFT_GYM_")}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", OMP_NUM_THREADS="2")
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    (checkpoint,) = (root / "output").glob(f"v*/checkpoint-{SFT_STEPS}")
    return checkpoint


@pytest.fixture(scope="module")
def tool_grpo(oracle_sft: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 GRPO steps from the SFT checkpoint on classic-map tool rows (each row carries the
    env's tools, as the scheduler asks); the run folder, with its `trajectories`."""
    root = tmp_path_factory.mktemp("tool-grpo")
    dataset = root / "rows.jsonl"
    tools = json.dumps(lake_tools())
    with dataset.open("w") as out:
        for seed in range(2):
            row = {
                "messages": [{"role": "user", "content": "<placeholder>"}],
                "env_config": {**TOOL_LAKE, "seed": seed},
                "tools": tools,
            }
            out.write(json.dumps(row) + "\n")
    run = page_rlhf(
        "tools", root, model=oracle_sft, dataset=dataset, max_turns=MAX_TURNS,
        flags={"--dataloader_num_workers": ["0"]}, env={"OMP_NUM_THREADS": "2"},
    )  # fmt: skip
    assert run.argv[run.argv.index("--agent_template") + 1] == "hermes"
    assert run.trajectories is not None, "the page's command sets no SWIFT_GYM_TRAJECTORIES"
    run.trajectories.rename(run.run_dir / "trajectories")
    return run.run_dir


def read_records(path: Path) -> list[dict[str, Any]]:
    return jsonl_records.records(path)


def written_calls(reply: str) -> list[dict[str, Any]]:
    """The calls as the reply's text writes them (hermes blocks), parsed."""
    return [json.loads(block) for block in CALL_BLOCK.findall(reply or "")]


def check_turns(record: dict[str, Any]) -> int:
    """Each turn's calls are the ones its text wrote, each answered by its result (same id and
    name, in order) holding the position the env reports. Returns the number of calls."""
    made = 0
    for turn in record["turns"]:
        calls, results = turn["tool_calls"], turn["tool_results"]
        assert [{"name": c["name"], "arguments": json.loads(c["arguments"])} for c in calls] == (
            written_calls(turn["reply"])
        )
        assert [r["tool_call_id"] for r in results] == [c["id"] for c in calls]
        assert all(c["id"] and r["name"] == c["name"] for c, r in zip(calls, results, strict=True))
        if calls:
            row, col = turn["info"]["position"]
            assert f"You are at row {row}, col {col}." in results[0]["content"]
        else:  # no call is no move: the env says so in text
            assert turn["valid_action"] is False and turn["observation"]
        made += len(calls)
    return made


def replay(record: dict[str, Any]) -> dict[str, Any]:
    """The record's calls played again in a fresh env: rewards, tool results, final status."""
    env = swift_gym.make({"name": "frozen_lake", **record["env_config"]})
    asyncio.run(env.reset())
    rewards, contents, info = [], [], {}
    for turn in record["turns"]:
        calls = [swift_gym.ToolCall(c["id"], c["name"], c["arguments"]) for c in turn["tool_calls"]]
        step = asyncio.run(env.step([assistant_message(turn["reply"] or "", calls)]))
        rewards.append(step.reward)
        contents.append([result.content for result in step.tool_results])
        info = step.info
    return {"rewards": rewards, "contents": contents, "status": info.get("status")}


def check_replays(record: dict[str, Any]) -> None:
    again = replay(record)
    assert again["rewards"] == [turn["reward"] for turn in record["turns"]]
    assert again["contents"] == [
        [result["content"] for result in turn["tool_results"]] for turn in record["turns"]
    ]
    assert sum(again["rewards"]) == pytest.approx(record["total_reward"])
    assert (again["status"] == "goal") is record["success"]


def test_grpo_trajectories_hold_the_models_parsed_calls_and_the_tool_results(
    tool_grpo: Path,
) -> None:
    (path,) = (tool_grpo / "trajectories").iterdir()
    records = read_records(path)
    assert len(records) == 4  # 2 steps x 2 completions
    turns = made = 0
    for record in records:
        assert record["env"] == "frozen_lake" and record["policy"] == "training"
        assert record["tools"] == lake_tools()  # the episode's tools, kept
        assert 1 <= record["num_turns"] == len(record["turns"]) <= MAX_TURNS
        made += check_turns(record)
        turns += len(record["turns"])
        check_replays(record)
    assert made * 2 > turns  # the model writes calls: most of its turns make one


def test_grpo_fed_the_tool_results_back_as_tool_responses(tool_grpo: Path) -> None:
    """ms-swift's completions log renders each episode's prompt as the trainer encoded it,
    with the hermes template: every result the env gave before the last turn is in it as a
    `<tool_response>`, after the call's end token written once."""
    (path,) = (tool_grpo / "trajectories").iterdir()
    records = read_records(path)
    rows = [json.loads(line) for line in (tool_grpo / "completions.jsonl").open()]
    chats = "\n".join(prompt for row in rows for prompt in row["prompt"])
    answered = [
        result["content"]
        for record in records
        for turn in record["turns"][:-1]
        for result in turn["tool_results"]
    ]
    assert answered
    for content in answered:
        assert f"<tool_response>\n{content}\n</tool_response>" in chats
    # each call's end token once, as in a chat: ms-swift 4.6 alone writes it twice before a
    # tool response (`swift_gym.ms_swift.tool_turn_ids`)
    assert "</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>" in chats
    assert "<|im_end|><|im_end|>" not in chats
    steps = {int(row["step"][0]): row for row in rows}  # ms-swift may log the last step twice
    totals = sorted(total for row in steps.values() for total in row["SwiftGymTotal"])
    assert totals == pytest.approx(sorted(record["total_reward"] for record in records))


@pytest.fixture(scope="module")
def tool_deploy(oracle_sft: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`swift deploy --agent_template hermes` of the SFT checkpoint; its base URL."""
    root = tmp_path_factory.mktemp("tool-deploy")
    args = ("--agent_template", "hermes", "--max_batch_size", "4")
    with deployed(oracle_sft, root / "deploy.log", *args) as url:
        yield url


def test_eval_openai_against_swift_deploy_plays_the_served_tool_calls(
    tool_deploy: str, tmp_path: Path
) -> None:
    out = tmp_path / "t.jsonl"
    command = [
        str(BIN / "swift-gym"), "eval", "frozen_lake", "--set", "action_format=tool",
        "--set", f"map={CLASSIC}", "--policy", "openai", "--base-url", tool_deploy,
        "--temperature", "0", "--max-tokens", "16", "-n", "3", "-o", str(out), "--json",
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=environ())
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads(result.stdout)
    assert summary["failed_episodes"] == 0, summary["errors"]
    records = read_records(out)
    assert len(records) == 3
    for record in records:
        assert record["tools"] == lake_tools()
        assert check_turns(record) == len(record["turns"])  # a call every turn, from the server
        check_replays(record)
    assert summary["success_rate"] == sum(r["success"] for r in records) / 3
    # greedy decoding on one map: the same episode each time, opening with the oracle's move
    # (the first prompt is the one it trained on; later ones differ, see the module's doc)
    episodes = [[turn["tool_calls"] for turn in record["turns"]] for record in records]
    moves = [json.loads(calls[0]["arguments"])["direction"] for calls in episodes[0]]
    assert moves[0] == ORACLE_PATH[0]
    assert all(
        [json.loads(calls[0]["arguments"]) for calls in episode]
        == [json.loads(calls[0]["arguments"]) for calls in episodes[0]]
        for episode in episodes
    )
