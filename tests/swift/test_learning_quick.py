"""The learning pipeline's short form (`benchmarks/learning/run.py --quick`) runs end to end and
writes well-formed results, so `tox -e learn` does not rot between its (45-minute) runs.

Every stage really runs (`swift sft`, `swift rlhf` GRPO with the swift_gym scheduler,
`swift-gym eval/export/dataset/report`), a few steps each on a ~100K-parameter model; the numbers
mean nothing at this size, their shape and consistency are what is checked. Cost: about 9
minutes on 2 shared cores (9m14s of CPU, mostly the start-up of 13 processes that import
torch, transformers or ms-swift), not the 3 minutes aimed at; experiment C (tool calls through
`--agent_template hermes`) adds 7 such processes: 17 minutes with it, on 2 cores that other
jobs kept at a load of 4 to 9.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

# pytest-timeout: the whole quick pipeline runs in the first test's fixture: 3 minutes here, up
# to 17 on cores that other jobs keep busy
pytestmark = pytest.mark.timeout(1800)

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "learning" / "run.py"
REQUIRED = {
    "experiment": str, "stage": str, "episodes": int, "success_rate": float, "ci_low": float,
    "ci_high": float, "mean_reward": float, "train_steps": int, "wall_s": float, "seed": int,
}  # fmt: skip
STAGES = {
    "A": ["format warm start", "GRPO"],
    "B": ["scratch (random weights)", "SFT on oracle episodes", "GRPO from SFT"],
    "C": ["format warm start", "GRPO"],
}


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("learn")
    command = [
        sys.executable, str(RUN), "--quick", "--out", str(out), "--work", str(out / "work"),
        "--threads", "2", "--keep", "--set", "a_grpo_steps=3",  # --set reaches the stage
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out


def load(out: Path) -> list[dict]:
    return json.loads((out / "learning.json").read_text())


def test_one_object_per_experiment_and_stage_with_the_required_keys(quick: Path) -> None:
    objs = load(quick)
    assert {e: [o["stage"] for o in objs if o["experiment"] == e] for e in STAGES} == STAGES
    assert {o["seed"] for o in objs} == {0}  # the quick form trains one seed
    for o in objs:
        for key, kind in REQUIRED.items():
            value = o[key]
            assert isinstance(value, kind) or (kind is float and isinstance(value, int)), key
        assert o["episodes"] == 10  # the quick form's evaluation size
        assert 0 <= o["ci_low"] <= o["success_rate"] <= o["ci_high"] <= 1
        assert 0 <= o["mean_reward"] <= 1 and math.isfinite(o["wall_s"]) and o["wall_s"] >= 0
        assert 0 <= o["invalid_action_rate"] <= 1 and 1 <= o["mean_turns"] <= 10
        assert sum(o["statuses"].values()) == o["episodes"]
        greedy = o["greedy"]
        assert 0 <= greedy["ci_low"] <= greedy["success_rate"] <= greedy["ci_high"] <= 1


def test_held_out_seeds_are_shared_and_never_trained_on(quick: Path) -> None:
    objs = load(quick)
    seeds = {tuple(o["eval_seeds"]) for o in objs if o["experiment"] == "B"}
    ((low, high),) = seeds  # every B stage plays the same seeds
    state = json.loads((quick / "work" / "state.json").read_text())
    train_seeds = state["meta"]["settings"]["b_train_seeds"]
    assert low >= train_seeds and high - low + 1 == 10
    rows = (quick / "work" / "seed-0" / "B" / "B-grpo-rows.jsonl").read_text().splitlines()
    trained = {json.loads(row)["env_config"]["seed"] for row in rows}
    assert trained == set(range(train_seeds)) and not trained & set(range(low, high + 1))


def test_steps_add_up_and_grpo_curves_come_from_training_episodes(quick: Path) -> None:
    objs = load(quick)
    a_start, a_grpo, b_start, b_sft, b_grpo, c_start, c_grpo = objs
    assert a_start["train_steps"] == 2 and a_grpo["train_steps"] == 2 + 3  # --set a_grpo_steps=3
    assert (b_start["train_steps"], b_sft["train_steps"], b_grpo["train_steps"]) == (0, 2, 4)
    assert (c_start["train_steps"], c_grpo["train_steps"]) == (2, 4)
    iterations = json.loads((quick / "work" / "state.json").read_text())["meta"]["settings"][
        "iterations"
    ]
    assert iterations > 1  # the quick form takes the full one's path: rollouts reused
    for o, steps in ((a_grpo, 3), (b_grpo, 2), (c_grpo, 2)):
        assert o["wall_s"] > 0
        points = o["curve"]
        # a rollout of 4 episodes every `iterations` optimizer steps, the first at step 0, as
        # the scheduler recorded them
        rollouts = [(step, 4) for step in range(0, steps, iterations)]
        assert [(p["step_low"], p["episodes"]) for p in points] == rollouts
        assert all(0 <= p["ci_low"] <= p["success_rate"] <= p["ci_high"] <= 1 for p in points)


def test_learning_md_holds_the_tables_the_numbers_and_the_commands(quick: Path) -> None:
    text = (quick / "LEARNING.md").read_text()
    for heading in (
        "## Experiment A", "## Experiment B", "## Experiment C", "## The commands, in order",
    ):  # fmt: skip
        assert heading in text
    assert text.count("| stage | seed | train steps | stage wall s |") == 3
    assert text.count("| stage | seeds | success: mean | sd |") == 3
    for o in load(quick):  # every number in the tables is learning.json's
        shown = f"{o['success_rate']:.3f} [{o['ci_low']:.3f}, {o['ci_high']:.3f}]"
        assert f"| {o['stage']} | {o['seed']} | {o['train_steps']} |" in text and shown in text
    for command in (
        "swift sft --model $WORK/seed-0/scratch-model --model_type qwen2 --template qwen2_5",
        "swift rlhf --rlhf_type grpo --use_vllm false",
        "--multi_turn_scheduler swift_gym --gym_env frozen_lake",
        "SWIFT_GYM_TRAJECTORIES=$WORK/seed-0/A/A-trajectories",
        "swift-gym eval frozen_lake --policy oracle",
        "swift-gym export $WORK/seed-0/B/B-oracle.jsonl --status goal",
        "swift-gym dataset frozen_lake",
        "python benchmarks/learning/evaluate.py",
        "swift-gym report",
        "--seed 0 --output_dir",  # the training seed reaches every training command
        "--full_determinism true",
        "MKL_CBWR=AVX2 ATEN_CPU_CAPABILITY=avx2",  # the pinned numerics, named in the text
        "swift sft --model $WORK/seed-0/C/C-scratch-model",
        "--agent_template hermes",
        "swift-gym dataset frozen_lake -n 4096 --set map=SFFF/FHFH/FFFH/HFFG --set "
        "action_format=tool --set invalid_action_reward=-0.5 -o",
        "SWIFT_GYM_TRAJECTORIES=$WORK/seed-0/C/C-trajectories",
        "--agent-template hermes",
    ):
        assert command in text, command
    assert str(quick / "work") not in text  # paths are written as $WORK
    assert "reached" in text and "Episodes before and after" in text


def test_the_html_report_and_the_curve_picture(quick: Path) -> None:
    page = (quick / "learning-report.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html")
    # every run: each stage's evaluation and both training dirs, named relative to the work dir
    for run in (
        "seed-0/A/A-eval-start.jsonl",
        "seed-0/A/A-eval-grpo.jsonl",
        "seed-0/B/B-eval-sft.jsonl",
        "seed-0/B/B-eval-grpo.jsonl",
        "seed-0/A/A-trajectories",
        "seed-0/B/B-trajectories",
        "seed-0/C/C-eval-grpo.jsonl",
        "seed-0/C/C-trajectories",
    ):
        assert run in page, run
    assert str(quick) not in page
    svg = ET.parse(quick / "learning-curve.svg").getroot()
    lines = svg.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 3  # one curve per experiment
    assert (quick / "learning-curve.svg").stat().st_size < 20_000


def test_the_policy_prompt_is_ms_swifts_qwen2_5_template(quick: Path) -> None:
    """evaluate.py prompts with the tokenizer's chat template; GRPO and SFT use ms-swift's
    `qwen2_5` template. Both must give the model the same tokens."""
    from swift.model import get_processor
    from swift.template import get_template
    from transformers import AutoTokenizer

    model = quick / "work" / "seed-0" / "scratch-model"
    record = json.loads(
        (quick / "work" / "seed-0" / "B" / "B-oracle.jsonl").read_text().splitlines()[0]
    )
    messages = [
        {"role": "system", "content": record["system_prompt"]},
        {"role": "user", "content": record["observation"]},
        {"role": "assistant", "content": record["turns"][0]["reply"]},
        {"role": "user", "content": record["turns"][0]["observation"]},
    ]
    template = get_template(
        get_processor(str(model), model_type="qwen2", download_model=False),
        template_type="qwen2_5",
    )
    ours = AutoTokenizer.from_pretrained(str(model)).apply_chat_template(
        messages, add_generation_prompt=True, tokenize=True, return_dict=True
    )["input_ids"]
    assert template.encode({"messages": messages})["input_ids"] == list(ours)


def tool_episode_messages(record: dict, turns: int) -> list[dict]:
    """The chat `swift_gym.evaluate` hands a policy after `turns` turns of a tool episode:
    OpenAI-shaped assistant `tool_calls` (content empty, as an oracle's) and tool messages."""
    messages = [
        {"role": "system", "content": record["system_prompt"]},
        {"role": "user", "content": record["observation"]},
    ]
    for turn in record["turns"][:turns]:
        calls = [
            {"id": c["id"], "type": "function",
             "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in turn["tool_calls"]
        ]  # fmt: skip
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        messages += [
            {"role": "tool", "tool_call_id": r["tool_call_id"], "name": r["name"],
             "content": r["content"]}
            for r in turn["tool_results"]
        ]  # fmt: skip
        if turn["observation"]:
            messages.append({"role": "user", "content": turn["observation"]})
    return messages


def test_experiment_c_prompts_are_ms_swifts_hermes_template_and_a_call_is_one_token(
    quick: Path,
) -> None:
    """Experiment C's evaluation encodes with ms-swift's template and the hermes agent template,
    and must give the model the tokens GRPO's rollouts give it: there an assistant turn is the
    reply's text (the call as hermes writes it) and the tools come from the row. Each call is
    one token, which ms-swift's engine decodes and parses back into the same call."""
    from swift.infer_engine import TransformersEngine
    from swift.model import get_processor
    from swift.template import get_template

    sys.path.insert(0, str(RUN.parent))
    from local_policy import LocalPolicy

    model = quick / "work" / "seed-0" / "C" / "C-scratch-model"
    record = json.loads(
        (quick / "work" / "seed-0" / "C" / "C-format-episodes.jsonl").read_text().splitlines()[0]
    )
    tools = record["tools"]
    assert [t["function"]["name"] for t in tools] == ["move"]
    processor = get_processor(str(model), model_type="qwen2", download_model=False)
    template = get_template(processor, template_type="qwen2_5", agent_template="hermes")
    policy = LocalPolicy(model, agent_template="hermes")
    turns = min(3, len(record["turns"]))
    evaluated = tool_episode_messages(record, turns)
    calls = [
        "".join(
            f'<tool_call>\n{{"name": "{c["name"]}", "arguments": {c["arguments"]}}}\n</tool_call>'
            for c in turn["tool_calls"]
        )
        for turn in record["turns"][:turns]
    ]
    # GRPO's request: the reply's text as content; an observation after tool results ends the
    # last tool message (the swift_gym scheduler's form); the row's tools as a JSON string
    played = []
    for m in evaluated:
        if m["role"] == "assistant":
            m = {"role": "assistant", "content": calls.pop(0)}
        elif m["role"] == "user" and played and played[-1]["role"] == "tool":
            played[-1] = {**played[-1], "content": played[-1]["content"] + "\n\n" + m["content"]}
            continue
        played.append(m)
    expected = template.encode({"messages": played, "tools": json.dumps(tools)})["input_ids"]
    assert policy.prompt_ids(evaluated, tools) == list(expected)
    assert "# Tools" in processor.decode(expected)  # the tools block is in the prompt

    # replies the policy sampled itself go in as the swift_gym scheduler hands them to
    # ms-swift's multi-turn loop: the sampled ids, less the end token before a tool response
    # (which writes it again), with it before a user turn (the template drops the overlap)
    end = processor.convert_tokens_to_ids("<|im_end|>")
    sampled = [dict(m) for m in evaluated]
    rolled = []
    for index, m in enumerate(played):
        if m["role"] == "assistant":
            ids = processor.encode(m["content"], add_special_tokens=False)
            policy._sampled[m["content"]] = [*ids, end]
            tool_next = index + 1 < len(played) and played[index + 1]["role"] == "tool"
            m = {"role": "assistant", "content": ids if tool_next else [*ids, end]}
        rolled.append(m)
    texts = iter(m["content"] for m in played if m["role"] == "assistant")
    for m in sampled:
        if m["role"] == "assistant":
            m["content"] = next(texts)
    expected = template.encode({"messages": rolled, "tools": json.dumps(tools)})["input_ids"]
    assert policy.prompt_ids(sampled, tools) == list(expected)
    assert "<|im_end|><|im_end|>" not in processor.decode(expected)
    assert policy.prompt_ids(evaluated, tools) == list(expected)  # a chat's history: the same

    # a call is one token: an SFT row's trained tokens are [call, <|im_end|>, "\\n"] a turn
    template.set_mode("train")
    rows = (quick / "work" / "seed-0" / "C" / "C-format-sft.jsonl").read_text().splitlines()
    row = json.loads(rows[0])
    encoded = template.encode(row)
    trained = [
        i for i, label in zip(encoded["input_ids"], encoded["labels"], strict=True) if label != -100
    ]
    end = processor.convert_tokens_to_ids("<|im_end|>")
    assert len(trained) == 3 * len(record["turns"]) and trained[1::3] == [end] * len(
        record["turns"]
    )
    engine = TransformersEngine(policy.model, template=template)  # the engine GRPO rolls out with
    for direction in ("up", "down", "left", "right"):
        text = (
            f'<tool_call>\n{{"name": "move", "arguments": {{"direction": "{direction}"}}}}'
            "\n</tool_call>"
        )
        (token,) = processor.encode(text, add_special_tokens=False)
        response = template.decode_generate_ids([token, end])  # as the engine decodes
        (parsed,) = engine._get_toolcall(response)
        assert parsed.function.name == "move"
        assert json.loads(parsed.function.arguments) == {"direction": direction}
        reply = policy.reply_message(response)  # evaluate.py's reading of the same reply
        assert reply["tool_calls"][0]["function"]["arguments"] == parsed.function.arguments


def kill_processes_naming(text: str) -> list[int]:
    """SIGKILL every process whose command line holds `text` (`swift rlhf` and its child)."""
    killed = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and text in line and int(entry.name) != os.getpid():
            os.kill(int(entry.name), signal.SIGKILL)
            killed.append(int(entry.name))
    return killed


def test_a_grpo_run_killed_half_way_goes_on_from_its_checkpoint(
    quick: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real `swift rlhf` GRPO run (A's quick warm start and rows, checkpoints every 4 steps),
    SIGKILLed once its step-4 checkpoint holds the trainer's state, then the same stage again:
    ms-swift goes on from that checkpoint to the last step, and the training episodes hold
    each rollout once (the killed run's later ones dropped, the resumed run's kept)."""
    sys.path.insert(0, str(ROOT / "benchmarks" / "learning"))
    import stages
    from commands import Commands

    work = quick / "work" / "seed-0" / "A"
    _, warm, _ = stages.last_checkpoint(work / "A-sft")
    monkeypatch.setattr(stages, "SAVE_EVERY", 4)
    cmd, out, trajectories = Commands(tmp_path, 1), tmp_path / "grpo", tmp_path / "traj"
    args = (warm, work / "A-grpo-rows.jsonl", out, trajectories, 12, 4, 1, 1e-3, 0.01, 10, 1.0)
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(stages.grpo, cmd, "A0-grpo", *args, 0, 4, "none")
        deadline = time.monotonic() + 1200
        while stages.resume_point(out) is None:
            assert not first.done(), first.result()
            assert time.monotonic() < deadline, "no checkpoint to go on from"
            time.sleep(0.2)
        assert kill_processes_naming(str(out))
        assert first.result().steps < 12  # cut off
    point = stages.resume_point(out)
    again = stages.grpo(cmd, "A0-grpo", *args, 0, 4, "none")
    _, command, seconds = cmd.log[-1]  # as LEARNING.md lists it: the work dir is $WORK
    assert f"--resume_from_checkpoint {point}".replace(str(tmp_path), "$WORK") in command
    assert again.ended is None and again.steps == 12 and again.checkpoint.name == "checkpoint-12"
    assert again.checkpoint.parent != point.parent  # ms-swift's new run dir
    assert again.wall_s > seconds  # the killed run's training up to the checkpoint counts
    labels: dict[int, int] = {}
    for path in trajectories.rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            step = json.loads(line)["training"]["step"]
            labels[step] = labels.get(step, 0) + 1
    assert labels == {0: 4, 4: 4, 8: 4}  # a rollout of 4 episodes every 4 steps, each once
