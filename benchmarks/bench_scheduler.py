"""Scheduler overhead: many concurrent FrozenLake trajectories through ms-swift's schedulers.

ms-swift 4.6's `scheduler.run(request, config)` (the `swift rollout` server path) is awaited for
every trajectory at once on one event loop, with a zero-latency scripted engine playing each
seed's shortest path. Four runs: {`gym_scheduler`, `swift_gym`} x {swift-gym's `frozen_lake`,
the baseline env registered by hand in `swift.rollout.gym_env.envs`}; the baseline is
`gym_scheduler` + baseline env, the plain ms-swift route. The schedulers come from
`swift.rollout.multi_turn.multi_turns`, filled by the installed start-up hook (checked). A fifth
run is `swift_gym` + swift-gym's env with SWIFT_GYM_TRAJECTORIES set (each finished episode
written to the trajectory file, on the event loop as in training), compared with the same run
without it: the cost of the trajectory file per episode.

Time is measured without tracemalloc; peak memory in separate runs with it. Memory per live env
is tracemalloc's growth while `LIVE_ENVS` envs are built, reset and kept alive.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import tempfile
import tracemalloc
from collections.abc import Callable
from typing import Any

import baseline_frozen_lake
from baseline_frozen_lake import BaselineFrozenLakeEnv
from bench_timing import goal, interleaved, median, ratio_row, timed, write_json
from bench_workload import MAX_TURNS, solver_replies
from scripted_engine import ScriptedEngine
from swift.infer_engine.protocol import RequestConfig, RolloutInferRequest
from swift.rollout.gym_env import envs
from swift.rollout.multi_turn import multi_turns

OURS = "frozen_lake"
BASELINE_ENV = baseline_frozen_lake.NAME
RUNS = {
    "gym_scheduler + baseline env": ("gym_scheduler", BASELINE_ENV),
    "gym_scheduler + swift-gym env": ("gym_scheduler", OURS),
    "swift_gym + baseline env": ("swift_gym", BASELINE_ENV),
    "swift_gym + swift-gym env": ("swift_gym", OURS),
}
BASELINE = "gym_scheduler + baseline env"
PLAIN = "swift_gym + swift-gym env"
WRITING = "swift_gym + swift-gym env, trajectory file"
TRAJECTORIES = "SWIFT_GYM_TRAJECTORIES"
LIVE_ENVS = 10_000
KIB = 1024
SWIFT_GYM_WHY = (
    "the swift_gym scheduler's own machinery is cheap (swift_gym + baseline env). The cost is "
    "what it exists for: each step's info is copied to JSON-safe data and kept in "
    "rollout_infos['step_infos'] until the trajectory ends, and FrozenLake's info is richer "
    "than the baseline's (8 fields and a metrics dict, against 4 fields). With 10,000 "
    "trajectories in flight those live dicts also lengthen every garbage collection. "
    "gym_scheduler drops info, and there swift-gym's env costs what the baseline env does"
)
WRITING_WHY = (
    "each turn is encoded to JSON as it ends (msgspec), and each finished episode becomes one "
    "line (the system prompt, first observation and reset info, the encoded turns spliced in) "
    "and one os.write, all on the event loop. This engine answers in zero time, so the "
    "scheduler's own work is all there is to compare with; in training each turn waits "
    "milliseconds or more for the model, next to which the same tens of microseconds per "
    "episode vanish"
)
ROW = {"action_parsing": "upstream"}
"""As in bench_env_speed: the example's parsing rule, so both envs play the same episodes."""


def check_registries() -> None:
    """The start-up hook must have filled ms-swift's registries; fail loudly if it did not."""
    if "swift_gym" not in multi_turns or OURS not in envs:
        raise RuntimeError(
            "swift-gym's start-up hook did not fill ms-swift's registries: is swift-gym "
            "installed (not editable from a path without the .pth) and SWIFT_GYM_AUTOLOAD unset?"
        )
    envs[BASELINE_ENV] = BaselineFrozenLakeEnv  # by hand, as an --external_plugins file does


class Workload:
    """Requests and scripted replies for `count` trajectories, one seed per `group` of them."""

    def __init__(self, count: int, group: int):
        self.seeds = [index // group for index in range(count)]
        by_seed = {seed: solver_replies(seed) for seed in set(self.seeds)}
        self.replies = {f"t{i}": by_seed[seed] for i, seed in enumerate(self.seeds)}

    def requests(self) -> list[Any]:
        return [
            RolloutInferRequest(
                messages=[{"role": "user", "content": "<placeholder>"}],
                uuid=f"t{i}",
                data_dict={"env_config": dict(ROW, seed=seed)},
            )
            for i, seed in enumerate(self.seeds)
        ]


def rollout(
    workload: Workload,
    scheduler_name: str,
    env_name: str,
    requests: list[Any],
    trajectories: str | None = None,
) -> list:
    engine = ScriptedEngine(workload.replies)
    if trajectories:
        os.environ[TRAJECTORIES] = trajectories  # the scheduler reads it when it is built
    try:
        scheduler = multi_turns[scheduler_name](
            infer_engine=engine, max_turns=MAX_TURNS, gym_env=env_name, tokenizer=engine.tokenizer
        )
    finally:
        os.environ.pop(TRAJECTORIES, None)
    config = RequestConfig(max_tokens=32, return_details=True)

    async def run_all() -> list:
        return await asyncio.gather(*(scheduler.run(request, config) for request in requests))

    return asyncio.run(run_all())


def check_outputs(outputs: list, label: str) -> None:
    """Every trajectory reached the goal: the runs did the work they claim to time."""
    rewards = {output.rollout_infos.get("total_reward") for output in outputs}
    if rewards != {1.0}:
        raise AssertionError(f"{label}: some trajectories did not reach the goal: {rewards}")


def check_written(directory: str | None, count: int) -> None:
    """The trajectory file holds one whole line per trajectory."""
    if directory is None:
        return
    files = os.listdir(directory)
    with open(os.path.join(directory, files[0]), encoding="utf-8") as file:
        lines = file.read().splitlines()
    if len(files) != 1 or len(lines) != count:
        raise AssertionError(f"{len(files)} trajectory files, {len(lines)} of {count} lines")
    shutil.rmtree(directory)


def time_per_trajectory(
    workload: Workload, scheduler_name: str, env_name: str, writing: bool = False
) -> float:
    requests = workload.requests()
    directory = tempfile.mkdtemp(prefix="bench-trajectories-") if writing else None
    gc.collect()
    outputs: list = []
    seconds = timed(
        lambda: outputs.extend(rollout(workload, scheduler_name, env_name, requests, directory))
    )
    check_outputs(outputs, f"{scheduler_name} + {env_name}")
    check_written(directory, len(requests))
    return seconds / len(requests)


def peak_per_trajectory(
    workload: Workload, scheduler_name: str, env_name: str, writing: bool = False
) -> float:
    requests = workload.requests()
    directory = tempfile.mkdtemp(prefix="bench-trajectories-") if writing else None
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    outputs = rollout(workload, scheduler_name, env_name, requests, directory)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    check_outputs(outputs, f"{scheduler_name} + {env_name}")
    check_written(directory, len(requests))
    return (peak - before) / len(requests)


def live_env_bytes(make: Callable[[dict[str, Any]], Any], count: int, group: int) -> float:
    """tracemalloc growth per env while `count` envs are built, reset and kept alive."""

    async def build() -> list:
        kept = []
        for index in range(count):
            env = make(dict(ROW, seed=1_000_000 + index // group))
            await env.reset(None)
            kept.append(env)
        return kept

    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = asyncio.run(build())
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del kept
    return grown / count


def measure(count: int, group: int, repeats: int, memory_repeats: int) -> dict[str, Any]:
    check_registries()
    workload = Workload(count, group)

    def timer(scheduler_name: str, env_name: str) -> Callable[[], float]:
        return lambda: time_per_trajectory(workload, scheduler_name, env_name)

    def peak(scheduler_name: str, env_name: str) -> Callable[[], float]:
        return lambda: peak_per_trajectory(workload, scheduler_name, env_name)

    def writing_timer() -> float:
        return time_per_trajectory(workload, "swift_gym", OURS, writing=True)

    def writing_peak() -> float:
        return peak_per_trajectory(workload, "swift_gym", OURS, writing=True)

    times = interleaved(
        {**{label: timer(*run) for label, run in RUNS.items()}, WRITING: writing_timer}, repeats
    )
    peaks = interleaved(
        {**{label: peak(*run) for label, run in RUNS.items()}, WRITING: writing_peak},
        memory_repeats,
        warmup=0,
    )
    rows, goals = [], []
    base_time, base_peak = median(times[BASELINE]), median(peaks[BASELINE])
    for label, (scheduler_name, env_name) in RUNS.items():
        t, m = median(times[label]), median(peaks[label])
        rows.append(ratio_row(f"time per trajectory, {label}", t * 1e6, base_time * 1e6, "us"))
        rows.append(
            ratio_row(f"peak memory per trajectory, {label}", m / KIB, base_peak / KIB, "KiB")
        )
        same = f"{scheduler_name} + baseline env"
        if env_name == OURS and same != BASELINE:  # the env's share under that scheduler
            t_same, m_same = median(times[same]), median(peaks[same])
            rows.append(ratio_row(f"time, {label} vs {same}", t * 1e6, t_same * 1e6, "us"))
            rows.append(ratio_row(f"peak memory, {label} vs {same}", m / KIB, m_same / KIB, "KiB"))
        if label != BASELINE:
            why = SWIFT_GYM_WHY if scheduler_name == "swift_gym" else ""
            time_ratio, memory_ratio = t / base_time, m / base_peak
            goals.append(
                goal(
                    f"time within 1.2x of baseline: {label}",
                    f"{time_ratio:.2f}x",
                    time_ratio <= 1.2,
                    why,
                )
            )
            goals.append(
                goal(
                    f"peak memory within 1.2x of baseline: {label}",
                    f"{memory_ratio:.2f}x",
                    memory_ratio <= 1.2,
                    why,
                )
            )
    t, t_plain = median(times[WRITING]), median(times[PLAIN])
    m, m_plain = median(peaks[WRITING]), median(peaks[PLAIN])
    rows.append(
        ratio_row(f"time per trajectory, {WRITING} vs {PLAIN}", t * 1e6, t_plain * 1e6, "us")
    )
    rows.append(ratio_row(f"peak memory, {WRITING} vs {PLAIN}", m / KIB, m_plain / KIB, "KiB"))
    goals.append(
        goal(
            "trajectory file costs under 5% of the swift_gym scheduler's time per episode",
            f"{(t / t_plain - 1) * 100:+.1f}% ({(t - t_plain) * 1e6:.0f} us)",
            t / t_plain < 1.05,
            WRITING_WHY,
        )
    )
    for seeds, per_seed in (("a new seed per env", 1), (f"{group} envs per seed", group)):
        ours, base = (
            median([live_env_bytes(make, LIVE_ENVS, per_seed) for _ in range(memory_repeats)])
            for make in (envs[OURS], BaselineFrozenLakeEnv)
        )
        rows.append(ratio_row(f"memory per live env, {seeds}", ours / KIB, base / KIB, "KiB"))
        goals.append(
            goal(
                f"memory per live FrozenLake env < 10 KB: {seeds}",
                f"{ours / 1000:.1f} KB",
                ours < 10_000,
            )
        )
    return {
        "benchmark": "scheduler overhead",
        "repeats": repeats,
        "detail": (
            f"{count} concurrent trajectories per run, {group} per seed (GRPO groups), solver "
            f"replies, max_turns {MAX_TURNS}. Time: median of {repeats} runs each; peak memory: "
            f"median of {memory_repeats} runs each under tracemalloc; live envs: {LIVE_ENVS} "
            f"built and reset, median of {memory_repeats}. Ratios against `{BASELINE}` unless "
            "the row names another"
        ),
        "rows": rows,
        "goals": goals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-repeats", type=int, default=1)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, measure(args.trajectories, args.group, args.repeats, args.memory_repeats))


if __name__ == "__main__":
    main()
