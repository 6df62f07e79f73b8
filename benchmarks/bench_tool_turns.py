"""A tool turn against a text turn through the `swift_gym` scheduler.

FrozenLake is played twice on the same seeds and shortest paths through ms-swift 4.6's
`scheduler.run` (the `swift rollout` server path), every trajectory at once on one event loop,
with a zero-latency scripted engine: with `action_format: tag` (the baseline: each reply
`<action>down</action>`) and with `action_format: tool` (each reply the hermes text of a `move`
call, handed over with its parsed `tool_calls` as an engine with `--agent_template` parses
them; each row carries the env's tools, as training rows do). Both sides play the same number
of turns, so time per turn is the run's time over its turns. The tool turn pays for reading the
calls, checking the arguments against the schema, the tool result, the tool message the next
request carries, and the calls and results in `rollout_infos`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
from typing import Any

from bench_timing import goal, interleaved, median, paired_ratio, ratio_row, timed, write_json
from bench_workload import MAX_TURNS, solver_replies
from scripted_engine import ReplyTokenizer, ScriptedEngine
from swift.infer_engine.protocol import (
    ChatCompletionMessageToolCall,
    Function,
    RequestConfig,
    RolloutInferRequest,
)
from swift.rollout.multi_turn import multi_turns

import swift_gym

GOAL = 1.1
ENV = "frozen_lake"
SIDES = {"text turn (action_format: tag)": "tag", "tool turn (action_format: tool)": "tool"}
TEXT, TOOL = SIDES


def offered_tools() -> list[dict[str, Any]]:
    """The `move` tool FrozenLake offers, as a row's `tools` column holds it."""
    env = swift_gym.make({"name": ENV, "action_format": "tool"})
    asyncio.run(env.reset())
    return json.loads(json.dumps(list(env.tools())))


def tool_reply(action: str, turn: int) -> tuple[str, list[Any]]:
    """The hermes text of `move(action)` and the call an agent template parses from it."""
    arguments = json.dumps({"direction": action})
    text = f'<tool_call>\n{{"name": "move", "arguments": {arguments}}}\n</tool_call>'
    call = ChatCompletionMessageToolCall(
        id=f"call_{turn}", type="function", function=Function(name="move", arguments=arguments)
    )
    return text, [call]


class Workload:
    """`count` trajectories, one seed per `group` of them; each turn's reply in both forms,
    drawn before timing."""

    def __init__(self, count: int, group: int):
        self.seeds = [index // group for index in range(count)]
        paths = {
            seed: [reply[len("<action>") : -len("</action>")] for reply in solver_replies(seed)]
            for seed in set(self.seeds)
        }
        self.paths = {f"t{i}": paths[seed] for i, seed in enumerate(self.seeds)}
        self.turns = sum(len(path) for path in self.paths.values())
        self.tools = offered_tools()

    def replies(self, mode: str) -> dict[str, list[Any]]:
        if mode == "tag":
            return {uuid: [f"<action>{a}</action>" for a in p] for uuid, p in self.paths.items()}
        return {
            uuid: [tool_reply(action, turn) for turn, action in enumerate(path)]
            for uuid, path in self.paths.items()
        }

    def requests(self, mode: str) -> list[Any]:
        extra = {"tools": self.tools} if mode == "tool" else {}
        return [
            RolloutInferRequest(
                messages=[{"role": "user", "content": "<placeholder>"}],
                uuid=f"t{i}",
                data_dict={"env_config": {"seed": seed, "action_format": mode}},
                **extra,
            )
            for i, seed in enumerate(self.seeds)
        ]


def rollout(replies: dict[str, list[Any]], requests: list[Any]) -> list:
    engine = ScriptedEngine(replies, ReplyTokenizer(replies))
    scheduler = multi_turns["swift_gym"](
        infer_engine=engine, max_turns=MAX_TURNS, gym_env=ENV, tokenizer=engine.tokenizer
    )
    config = RequestConfig(max_tokens=32, return_details=True)

    async def run_all() -> list:
        return await asyncio.gather(*(scheduler.run(request, config) for request in requests))

    return asyncio.run(run_all())


def check(outputs: list, mode: str, turns: int) -> None:
    """Every trajectory reached the goal in the path's turns; tool episodes by their calls."""
    infos = [output.rollout_infos for output in outputs]
    if {info.get("total_reward") for info in infos} != {1.0}:
        raise AssertionError(f"{mode}: some trajectories did not reach the goal")
    if sum(len(info["step_rewards"]) for info in infos) != turns:
        raise AssertionError(f"{mode}: not {turns} turns")
    calls = sum(len(c) for info in infos for c in info.get("tool_calls", []))
    if calls != (turns if mode == "tool" else 0):
        raise AssertionError(f"{mode}: {calls} tool calls recorded in {turns} turns")


def per_turn(workload: Workload, mode: str) -> float:
    replies, requests = workload.replies(mode), workload.requests(mode)
    gc.collect()
    outputs: list = []
    seconds = timed(lambda: outputs.extend(rollout(replies, requests)))
    check(outputs, mode, workload.turns)
    return seconds / workload.turns


def measure(count: int, group: int, repeats: int) -> dict[str, Any]:
    if "swift_gym" not in multi_turns:
        raise RuntimeError("swift-gym's start-up hook did not register the swift_gym scheduler")
    workload = Workload(count, group)
    times = interleaved(
        {label: (lambda mode=mode: per_turn(workload, mode)) for label, mode in SIDES.items()},
        repeats,
    )
    text_us, tool_us = median(times[TEXT]) * 1e6, median(times[TOOL]) * 1e6
    ratio = paired_ratio(times[TOOL], times[TEXT])
    return {
        "benchmark": "tool turns through the swift_gym scheduler",
        "repeats": repeats,
        "detail": (
            f"{count} concurrent FrozenLake trajectories per run ({workload.turns} turns), "
            f"{group} per seed, shortest-path replies, scheduler.run (server path), "
            f"zero-latency scripted engine; median of {repeats} runs per side, in turns; the "
            "goal is judged on the median of each round's ratio"
        ),
        "rows": [ratio_row(f"time per turn, {TOOL} vs {TEXT}", tool_us, text_us, "us")],
        "goals": [
            goal(
                f"tool turn within {GOAL:g}x of a text turn (swift_gym scheduler)",
                f"{ratio:.2f}x",
                ratio <= GOAL,
                "the tool turn reads and checks the call, builds its result and the tool "
                "message, and keeps calls and results in rollout_infos",
            )
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trajectories", type=int, default=4000)
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.trajectories, args.group, args.repeats))


if __name__ == "__main__":
    main()
