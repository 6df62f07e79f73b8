"""The context check's cost: what the `swift_gym` scheduler spends making sure each episode's
next prompt fits its engine (`swift_gym.ms_swift.context_room`), against what the engine
itself spends encoding every prompt it is sent.

ms-swift's engines encode each turn's prompt with their template before they generate. The
check counts an episode's prompt with the same template once and then bounds the next ones,
counting again only near the limit, so its cost should be a small share of the engine's own
encoding. Three runs of the same FrozenLake trajectories (the solver's replies, so every episode
plays its shortest path) through `scheduler.run` on a zero-latency scripted engine:
- *plain*: the engine says nothing of its context (no check);
- *checked*: the engine has the learning pipeline's scratch tokenizer with the `qwen2_5`
  template and a `max_model_len` of 2048 (the scratch model's), so the scheduler checks;
- *engine encoding*: no check, but the engine encodes every prompt with that template, as a
  real engine does.
The check's cost is checked - plain; the engine's encoding is engine encoding - plain.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_timing import goal, interleaved, median, ratio_row, timed, write_json
from bench_workload import MAX_TURNS, solver_replies
from scripted_engine import ScriptedEngine
from swift.infer_engine.protocol import RequestConfig, RolloutInferRequest
from swift.rollout.multi_turn import multi_turns

from swift_gym.ms_swift.context_room import ContextRoom

MAX_MODEL_LEN = 2048
WHY = (
    "the check counts each episode's second prompt in full (the engine's template encoding the "
    "whole chat) and bounds the rest; with episodes this short that one count is a large share "
    "of what the engine encodes"
)


def scratch_template(out: Path) -> Any:
    """The learning pipeline's scratch tokenizer (`benchmarks/learning/model.py`) with
    ms-swift's qwen2_5 template, in inference mode, as an engine holds it."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "learning"))
    from model import build_model
    from swift.model import get_processor
    from swift.template import get_template

    build_model(out, "tiny", 0)
    template = get_template(get_processor(str(out), model_type="qwen2"), template_type="qwen2_5")
    template.set_mode("transformers")
    return template


class EncodingEngine(ScriptedEngine):
    """The scripted engine that encodes each prompt with `encoder`, as real engines do; it says
    nothing of its context (no `template` attribute), so the scheduler does not check."""

    def __init__(self, replies: dict[str, list[Any]], encoder: Any):
        super().__init__(replies)
        self.encoder = encoder

    async def infer_async(self, request: Any, request_config: Any, **kwargs: Any) -> Any:
        self.encoder.encode(request)
        return await super().infer_async(request, request_config, **kwargs)


def requests(count: int) -> list[Any]:
    return [
        RolloutInferRequest(
            messages=[{"role": "user", "content": "<placeholder>"}],
            uuid=f"t{i}",
            data_dict={"env_config": {"seed": i, "action_parsing": "upstream"}},
        )
        for i in range(count)
    ]


def rollout(engine: Any, count: int) -> list:
    scheduler = multi_turns["swift_gym"](
        infer_engine=engine, max_turns=MAX_TURNS, gym_env="frozen_lake", tokenizer=engine.tokenizer
    )
    config = RequestConfig(max_tokens=32, return_details=True)
    batch = requests(count)

    async def run_all() -> list:
        return await asyncio.gather(*(scheduler.run(request, config) for request in batch))

    outputs = asyncio.run(run_all())
    rewards = {output.rollout_infos.get("total_reward") for output in outputs}
    if rewards != {1.0}:  # every episode played its whole path: the runs did the same work
        raise AssertionError(f"some trajectories did not reach the goal: {rewards}")
    return outputs


def full_counts(run: Any) -> int:
    """How many prompts `run()` made the check count in full (the rest it bounded); counted in
    a run of its own, so the timed runs call the check as it is."""
    counted = 0
    count_prompt = ContextRoom.count

    def counting(self: ContextRoom, messages: list, tools: Any) -> int:
        nonlocal counted
        counted += 1
        return count_prompt(self, messages, tools)

    ContextRoom.count = counting  # type: ignore[method-assign]
    try:
        run()
    finally:
        ContextRoom.count = count_prompt  # type: ignore[method-assign]
    return counted


def measure(count: int, repeats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        return measure_with(scratch_template(Path(tmp) / "model"), count, repeats)


def measure_with(template: Any, count: int, repeats: int) -> dict[str, Any]:
    replies = {f"t{i}": solver_replies(i) for i in range(count)}

    def plain() -> ScriptedEngine:
        return ScriptedEngine(replies)

    def checked() -> ScriptedEngine:
        engine = ScriptedEngine(replies)
        engine.template, engine.max_model_len = template, MAX_MODEL_LEN
        return engine

    def encoding() -> ScriptedEngine:
        return EncodingEngine(replies, template)

    turns: list[int] = []

    def timer(make: Any) -> Any:
        def run() -> float:
            gc.collect()
            outputs: list = []
            seconds = timed(lambda: outputs.extend(rollout(make(), count)))
            turns[:] = [output.rollout_infos["num_turns"] for output in outputs]
            return seconds / count

        return run

    counts_per_episode = full_counts(lambda: rollout(checked(), count)) / count
    times = interleaved(
        {"plain": timer(plain), "checked": timer(checked), "encoding": timer(encoding)}, repeats
    )
    t_plain, t_checked, t_encoding = (median(times[k]) for k in ("plain", "checked", "encoding"))
    check, engine = t_checked - t_plain, t_encoding - t_plain
    share = check / engine
    rows = [
        ratio_row("time per trajectory, checked vs plain", t_checked * 1e6, t_plain * 1e6, "us"),
        ratio_row(
            "the check's time vs the engine's own prompt encoding, per trajectory",
            check * 1e6,
            engine * 1e6,
            "us",
        ),
    ]
    goals = [
        goal(
            "the check costs under half of what the engine spends encoding the same prompts",
            f"{share:.2f}x ({counts_per_episode:.2f} full counts per episode of "
            f"{median(turns):.0f} turns)",
            share < 0.5,
            WHY,
        )
    ]
    return {
        "benchmark": "context check",
        "repeats": repeats,
        "detail": (
            f"{count} concurrent FrozenLake trajectories per run (the solver's path, median "
            f"{median(turns):.0f} turns), max_model_len {MAX_MODEL_LEN}; median of {repeats} "
            "runs each, interleaved"
        ),
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trajectories", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.trajectories, args.repeats))


if __name__ == "__main__":
    main()
